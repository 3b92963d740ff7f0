import ArgumentParser
import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this machine for riding: config, GPS, UART/Bluetooth, adapter, LED line, broker, clock.",
        discussion: "Each check says what it found and, if something is wrong, what to do. Exit status 0 only if nothing failed.")

    @OptionGroup var configFile: ConfigFileOption

    func run() async throws {
        let logger = Logger(label: "doctor", level: .error, handler: StandardErrorLogHandler.detect())
        let checks = await Doctor(configPath: configFile.config, lastGood: configFile.lastGood, loop: try processLoop(), logger: logger).run()
        let colour = isatty(1) == 1
        for check in checks {
            let mark: String
            switch check.outcome {
            case .pass: mark = colour ? "\u{1B}[32m✓\u{1B}[0m" : "ok  "
            case .warn: mark = colour ? "\u{1B}[33m!\u{1B}[0m" : "warn"
            case .fail: mark = colour ? "\u{1B}[31m✗\u{1B}[0m" : "FAIL"
            case .skip: mark = colour ? "\u{1B}[2m-\u{1B}[0m" : "skip"
            }
            print("\(mark) \(check.name): \(check.detail)")
            if let fix = check.fix { print("    fix: \(fix)") }
        }
        if checks.contains(where: { $0.outcome == .fail }) { throw ExitCode(1) }
    }
}
