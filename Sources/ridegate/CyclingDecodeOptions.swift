import ArgumentParser
import RidegateCore

/// What `csc decode` and `power decode` share: the values, the wheel, the output, and the printing.
struct CyclingDecodeOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Successive values from one sensor, in hex (spaces and colons are ignored within one value).",
                                 valueName: "hex"))
    var values: [String]

    @Option(help: ArgumentHelp("The wheel's circumference in millimetres, for wheel speed (700x25c: 2105).", valueName: "mm"))
    var wheelMM: Double = 2105

    @Flag(help: "Print one JSON object per value, one per line, instead of a table.")
    var json = false

    func validate() throws {
        guard !values.isEmpty else { throw ValidationError("Give at least one value in hex, e.g. 0139300000409c.") }
        guard (500...3500).contains(wheelMM) else {
            throw ValidationError("The value '\(JSONObjectWriter.number(wheelMM, decimals: 1))' is invalid for '--wheel-mm'. Use 500 to 3500 (a 700x25c wheel is 2105).")
        }
        for value in values where [UInt8](hex: value) == nil {
            throw ValidationError("The value '\(value)' is not hex. Use pairs of hex digits such as 0139300000409c or 01:39:30.")
        }
    }

    /// Decodes and prints every value; exit status 65 when any was malformed.
    func run(_ kind: CyclingDecodeSequence.Kind) throws {
        var sequence = CyclingDecodeSequence(kind: kind, wheelCircumferenceMillimetres: wheelMM)
        var malformed = false
        for (index, value) in values.enumerated() {
            switch sequence.decode([UInt8](hex: value) ?? []) {
            case .decoded(let fields):
                print(json ? CyclingField.json(fields) : CyclingTable.render(fields, index: index, count: values.count))
            case .failed(let error):
                malformed = true
                if json { print("{\"error\":\"\(error.kind.rawValue)\"}") }
                writeError(error.description)
            }
        }
        if malformed { throw ExitCode(ExitStatus.dataError) }
    }
}

/// The table form: one "field  value" line per field, units spelled out.
enum CyclingTable {
    static let labels: [(key: String, label: String, unit: String)] = [
        ("power_w", "power", "W"), ("pedal_power_balance_pct", "pedal balance", "%"),
        ("pedal_power_balance_reference", "balance reference", ""), ("accumulated_torque_nm", "accumulated torque", "N·m"),
        ("accumulated_torque_source", "torque source", ""), ("wheel_revolutions", "wheel revolutions", ""),
        ("wheel_event_time_s", "wheel event time", "s"), ("crank_revolutions", "crank revolutions", ""),
        ("crank_event_time_s", "crank event time", "s"), ("max_force_n", "max force", "N"), ("min_force_n", "min force", "N"),
        ("max_torque_nm", "max torque", "N·m"), ("min_torque_nm", "min torque", "N·m"), ("max_angle_deg", "max angle", "°"),
        ("min_angle_deg", "min angle", "°"), ("top_dead_spot_deg", "top dead spot", "°"),
        ("bottom_dead_spot_deg", "bottom dead spot", "°"), ("accumulated_energy_kj", "accumulated energy", "kJ"),
        ("offset_compensation", "offset compensation", ""), ("cadence_rpm", "cadence", "rpm"), ("wheel_speed_mps", "wheel speed", "m/s"),
    ]

    static func render(_ fields: [CyclingField], index: Int, count: Int) -> String {
        var lines = count > 1 ? ["value \(index + 1)"] : []
        for field in fields {
            let (label, unit) = labels.first { $0.key == field.key }.map { ($0.label, $0.unit) } ?? (field.key, "")
            let padded = label + String(repeating: " ", count: max(1, 21 - label.count))
            lines.append(padded + field.formatted + (unit.isEmpty ? "" : " \(unit)"))
        }
        if lines.isEmpty || lines == ["value \(index + 1)"] { lines.append("no data (flags announce no fields)") }
        return lines.joined(separator: "\n")
    }
}
