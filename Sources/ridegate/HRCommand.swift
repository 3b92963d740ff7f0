import ArgumentParser
import RidegateCore

struct HRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hr",
        abstract: "Heart-rate tools.",
        subcommands: [Decode.self])

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode one Heart Rate Measurement (0x2A37) value.",
            discussion: """
                HEX is the characteristic value as a strap sends it, e.g. 1046200321 or "10 46 20 03". \
                Exit status 65 when it is malformed.
                """)

        @Argument(help: ArgumentHelp("The value in hex; spaces and colons are ignored.", valueName: "hex"))
        var hex: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            guard let bytes = [UInt8](hex: hex) else {
                throw ValidationError("The value '\(hex)' is not hex. Use pairs of hex digits such as 0648 or 10:46:20:03.")
            }
            do {
                let m = try HeartRateMeasurement(decoding: bytes)
                if json {
                    var out = JSONObjectWriter()
                    out.add("heart_rate_bpm", m.beatsPerMinute)
                    out.add("hr_format", m.format.rawValue)
                    out.add("sensor_contact", m.sensorContact.rawValue)
                    out.add("energy_expended_kj", m.energyExpendedKilojoules)
                    out.add("rr_intervals_ms", m.rrIntervalsMilliseconds, decimals: 3)
                    print(out.finish())
                } else {
                    print("heart rate      \(m.beatsPerMinute) bpm (\(m.format.rawValue))")
                    print("sensor contact  \(m.sensorContact.rawValue.replacingUnderscores())")
                    print("energy expended \(m.energyExpendedKilojoules.map { "\($0) kJ" } ?? "not present")")
                    let rr = m.rrIntervalsMilliseconds.map { JSONObjectWriter.number($0, decimals: 1) }
                    print("RR intervals    \(rr.isEmpty ? "none" : rr.joined(separator: ", ") + " ms")")
                }
            } catch {
                if json {
                    print("{\"error\":\"\(error.kind.rawValue)\"}")
                }
                writeError(error.description)
                throw ExitCode(ExitStatus.dataError)
            }
        }
    }
}

extension String {
    func replacingUnderscores() -> String { String(map { $0 == "_" ? " " : $0 }) }
}
