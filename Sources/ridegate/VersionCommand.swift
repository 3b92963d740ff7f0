import ArgumentParser
import RidegateLinux

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print ridegate's version and the versions of the C libraries it was built with.")

    func run() {
        print("ridegate \(RidegateVersion.current)")
        print(GPIOOutputLine.libraryDescription)
        print(MQTTLibrary.versionDescription)
        print(SQLiteLibrary.versionDescription)
        print("libbluetooth (BlueZ): linked; BlueZ's library reports no version, `bluetoothctl --version` gives the stack's")
    }
}
