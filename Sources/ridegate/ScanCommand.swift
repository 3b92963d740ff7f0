import ArgumentParser
import Glibc
import RidegateCore
import RidegateLinux

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List nearby sensors: heart-rate straps, speed/cadence sensors and power meters, with what each measures.",
        discussion: """
            Scans with the kernel's Bluetooth management interface, beside bluetoothd, and stops scanning \
            when done. Needs CAP_NET_ADMIN (root, or `sudo setcap cap_net_admin,cap_net_raw+ep` on the binary). \
            A sensor is a device advertising the Heart Rate (0x180D), Cycling Speed and Cadence (0x1816) or Cycling \
            Power (0x1818) service. Use a strap's address or name in heart_rate.straps, or leave it at "auto".
            """)

    @Option(help: ArgumentHelp("Scan for this many seconds (1 to 300).", valueName: "seconds"))
    var seconds: Int = 10

    @Flag(help: "Print one JSON object per sighting (address, address_type, name, rssi, heart_rate, kinds) instead of a table.")
    var json = false

    @Flag(help: "List every advertising device, not only sensors.")
    var all = false

    func validate() throws {
        guard (1...300).contains(seconds) else {
            throw ValidationError("The value '\(seconds)' is invalid for '--seconds'. Use 1 to 300.")
        }
    }

    func run() async throws {
        let table = Locked<[BluetoothAddress: ManagementEvent.DeviceFound]>([:])
        let live = !json && isatty(1) == 1
        let showAll = all
        let jsonOutput = json
        let scanSeconds = Double(seconds)
        let loop = try processLoop()
        let outcome: Result<Void, BluetoothError> = await withDeadline(seconds: scanSeconds, on: loop) { () async -> Result<Void, BluetoothError> in
            do throws(BluetoothError) {
                try await AdvertisementScanner(loop: loop).scan { device in
                    guard showAll || !device.advertising.sensorKinds.isEmpty else { return }
                    let merged = table.withLock { devices -> ManagementEvent.DeviceFound in
                        var entry = device
                        if let previous = devices[device.address] {
                            var ad = previous.advertising
                            ad.merge(device.advertising)
                            entry.advertising = ad
                        }
                        devices[device.address] = entry
                        return entry
                    }
                    if jsonOutput {
                        var w = JSONObjectWriter()
                        w.add("address", merged.address.description)
                        w.add("address_type", merged.address.kind.rawValue)
                        w.add("name", merged.advertising.localName)
                        w.add("rssi", merged.rssi)
                        w.add("heart_rate", merged.advertising.advertisesHeartRate)
                        w.add("kinds", json: "[" + merged.advertising.sensorKinds.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]")
                        print(w.finish())
                    } else if live {
                        Self.draw(table.withLock { Array($0.values) }, redraw: true)
                    }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }.value(or: .success(()))
        if case .failure(let error) = outcome {
            writeError(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
        if !json {
            Self.draw(table.withLock { Array($0.values) }, redraw: false)
        }
    }

    static func draw(_ devices: [ManagementEvent.DeviceFound], redraw: Bool) {
        var text = redraw ? "\u{1B}[H\u{1B}[2J" : ""
        text += "address            type    rssi  measures                   name\n"
        for d in devices.sorted(by: { $0.rssi > $1.rssi }) {
            let address = d.address.description
            let kind = d.address.kind.rawValue.padded(to: 7)
            let rssi = String(d.rssi).padded(to: 5)
            let kinds = d.advertising.sensorKinds.map(\.measures).joined(separator: ", ")
            let measures = (kinds.isEmpty ? "-" : kinds).padded(to: 26)
            text += "\(address)  \(kind) \(rssi) \(measures) \(d.advertising.localName ?? "-")\n"
        }
        if devices.isEmpty {
            text += "(no sensors seen yet: wear the strap, or wet its electrodes, to wake it; turn the crank or the wheel to wake a power meter or a speed/cadence sensor)\n"
        }
        print(text, terminator: "")
    }
}
