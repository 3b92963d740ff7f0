/// Writes one JSON object, key by key, into a string: the payloads are flat and small, and this keeps
/// Foundation's JSONEncoder (and its allocations) off the per-reading path.
public struct JSONObjectWriter: Sendable {
    private var text: String
    private var empty = true

    public init(capacity: Int = 192) {
        text = "{"
        text.reserveCapacity(capacity)
    }

    /// Continues an object another writer finished (a stored reading, the core's `health`), to add members
    /// only a later stage knows. Nil when `object` is not the text of a JSON object.
    public init?(extending object: String) {
        var body = Substring(object)
        while let last = body.last, last == " " || last == "\n" || last == "\t" || last == "\r" { body.removeLast() }
        guard body.first == "{", body.last == "}" else { return nil }
        body.removeLast()
        text = String(body)
        empty = body.dropFirst().allSatisfy { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
    }

    private mutating func key(_ key: String) {
        if !empty { text.append(",") }
        empty = false
        JSONObjectWriter.appendQuoted(key, to: &text)
        text.append(":")
    }

    public mutating func add(_ name: String, _ value: String) {
        key(name)
        JSONObjectWriter.appendQuoted(value, to: &text)
    }

    public mutating func add(_ name: String, _ value: Int) {
        key(name)
        text.append(String(value))
    }

    public mutating func add(_ name: String, _ value: Bool) {
        key(name)
        text.append(value ? "true" : "false")
    }

    /// A number rounded to `decimals` places; non-finite values become `null`.
    public mutating func add(_ name: String, _ value: Double, decimals: Int) {
        key(name)
        JSONObjectWriter.appendNumber(value, decimals: decimals, to: &text)
    }

    public mutating func addNull(_ name: String) {
        key(name)
        text.append("null")
    }

    public mutating func add(_ name: String, _ values: [Double], decimals: Int) {
        key(name)
        text.append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(",") }
            JSONObjectWriter.appendNumber(value, decimals: decimals, to: &text)
        }
        text.append("]")
    }

    public mutating func add(_ name: String, _ values: [Int]) {
        key(name)
        text.append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(",") }
            text.append(String(value))
        }
        text.append("]")
    }

    public mutating func add(_ name: String, _ values: [String]) {
        key(name)
        text.append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(",") }
            JSONObjectWriter.appendQuoted(value, to: &text)
        }
        text.append("]")
    }

    /// Inserts already-encoded JSON (a nested object written by another writer).
    public mutating func add(_ name: String, json: String) {
        key(name)
        text.append(json)
    }

    /// Optional helpers: absent values are written as `null`, so subscribers see every field every time.
    public mutating func add(_ name: String, _ value: Double?, decimals: Int) {
        if let value { add(name, value, decimals: decimals) } else { addNull(name) }
    }

    public mutating func add(_ name: String, _ value: Int?) {
        if let value { add(name, value) } else { addNull(name) }
    }

    public mutating func add(_ name: String, _ value: String?) {
        if let value { add(name, value) } else { addNull(name) }
    }

    public func finish() -> String { text + "}" }

    /// A number as JSON writes it (at most `decimals` places, no trailing zeros): for tables too.
    public static func number(_ value: Double, decimals: Int) -> String {
        var text = ""
        appendNumber(value, decimals: decimals, to: &text)
        return text
    }

    static func appendNumber(_ value: Double, decimals: Int, to text: inout String) {
        guard value.isFinite else {
            text.append("null")
            return
        }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value * scale).rounded()
        if abs(scaled) < 9.0e15 {
            // Integer arithmetic prints exactly `decimals` places with no binary-fraction noise.
            let integer = Int64(scaled)
            let negative = integer < 0
            let magnitude = negative ? UInt64(-integer) : UInt64(integer)
            let divisor = UInt64(scale)
            if negative { text.append("-") }
            text.append(String(magnitude / divisor))
            // The fraction's trailing zeros dropped in integers, not by editing a string (the hot path of
            // `nmea --json`): `places` digits are left, the first ones possibly zeros.
            var fraction = magnitude % divisor
            var places = decimals
            while places > 0, fraction % 10 == 0 {
                fraction /= 10
                places -= 1
            }
            if places > 0 {
                text.append(".")
                var digits = 1
                var rest = fraction / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                for _ in digits..<places { text.append("0") }
                text.append(String(fraction))
            }
        } else {
            text.append(String(value))
        }
    }

    static func appendQuoted(_ value: String, to text: inout String) {
        text.append("\"")
        // The common case, plain ASCII with nothing to escape, goes in one piece.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            text.append(value)
            text.append("\"")
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = Array("0123456789abcdef")
                text.append("\\u00")
                text.append(hex[Int(scalar.value >> 4)])
                text.append(hex[Int(scalar.value & 0xF)])
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }
}
