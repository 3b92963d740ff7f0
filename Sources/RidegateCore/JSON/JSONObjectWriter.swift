/// Writes one JSON object, key by key, into UTF-8 bytes made a string once at the end: the payloads are
/// flat and small, and this keeps Foundation's JSONEncoder (and its allocations) off the per-reading path.
/// Bytes, not a String, because a String append checks and re-flags the text on every call: on
/// `ridegate nmea --json`'s hot path that was most of the time.
public struct JSONObjectWriter: Sendable {
    private var bytes: [UInt8]
    private var empty = true

    public init(capacity: Int = 192) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Continues an object another writer finished (a stored reading, the core's `health`), to add members
    /// only a later stage knows. Nil when `object` is not the text of a JSON object.
    public init?(extending object: String) {
        var body = Substring(object)
        while let last = body.last, last == " " || last == "\n" || last == "\t" || last == "\r" { body.removeLast() }
        guard body.first == "{", body.last == "}" else { return nil }
        body.removeLast()
        bytes = Array(body.utf8)
        empty = body.dropFirst().allSatisfy { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
    }

    private mutating func key(_ key: String) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        JSONObjectWriter.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func add(_ name: String, _ value: String) {
        key(name)
        JSONObjectWriter.appendQuoted(value, to: &bytes)
    }

    public mutating func add(_ name: String, _ value: Int) {
        key(name)
        JSONObjectWriter.appendInteger(value, to: &bytes)
    }

    public mutating func add(_ name: String, _ value: Bool) {
        key(name)
        append(value ? "true" : "false")
    }

    /// A number rounded to `decimals` places; non-finite values become `null`.
    public mutating func add(_ name: String, _ value: Double, decimals: Int) {
        key(name)
        JSONObjectWriter.appendNumber(value, decimals: decimals, to: &bytes)
    }

    public mutating func addNull(_ name: String) {
        key(name)
        append("null")
    }

    public mutating func add(_ name: String, _ values: [Double], decimals: Int) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONObjectWriter.appendNumber(value, decimals: decimals, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func add(_ name: String, _ values: [Int]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONObjectWriter.appendInteger(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func add(_ name: String, _ values: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONObjectWriter.appendQuoted(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Inserts already-encoded JSON (a nested object written by another writer).
    public mutating func add(_ name: String, json: String) {
        key(name)
        bytes.append(contentsOf: json.utf8)
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

    public func finish() -> String {
        String(unsafeUninitializedCapacity: bytes.count + 1) { buffer in
            let written = buffer.initialize(fromContentsOf: bytes)
            buffer[written] = UInt8(ascii: "}")
            return written + 1
        }
    }

    /// A number as JSON writes it (at most `decimals` places, no trailing zeros): for tables too.
    public static func number(_ value: Double, decimals: Int) -> String {
        var text = ""
        appendNumber(value, decimals: decimals, to: &text)
        return text
    }

    static func appendNumber(_ value: Double, decimals: Int, to text: inout String) {
        var bytes: [UInt8] = []
        appendNumber(value, decimals: decimals, to: &bytes)
        text.append(String(decoding: bytes, as: UTF8.self))
    }

    static func appendNumber(_ value: Double, decimals: Int, to bytes: inout [UInt8]) {
        guard value.isFinite else {
            bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) // null
            return
        }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9.0e15 else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        // Integer arithmetic prints exactly `decimals` places with no binary-fraction noise.
        let integer = Int64(scaled)
        let magnitude = integer.magnitude
        let divisor = UInt64(scale)
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(magnitude / divisor, minimumCount: 1, to: &bytes)
        // The fraction's trailing zeros dropped in integers, not by editing text: `places` digits are left,
        // the first ones possibly zeros.
        var fraction = magnitude % divisor
        var places = decimals
        while places > 0, fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        if places > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(fraction, minimumCount: places, to: &bytes)
        }
    }

    static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude), minimumCount: 1, to: &bytes)
    }

    /// `value` in decimal, zero-padded on the left to `minimumCount` digits.
    private static func appendDigits(_ value: UInt64, minimumCount: Int, to bytes: inout [UInt8]) {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        let width = max(count, minimumCount)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var remaining = value
        var index = start + width - 1
        while remaining > 0 {
            bytes[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            index -= 1
        }
    }

    /// A JSON string: `"`, `\\`, and control characters escaped; everything else (UTF-8 of any script)
    /// as it is.
    static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Nearly every key and value needs no escape: then its UTF-8 goes in with one copy.
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied != true { appendEscaped(value, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case ..<0x20:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                hex.withUTF8Buffer { digits in
                    bytes.append(digits[Int(byte >> 4)])
                    bytes.append(digits[Int(byte & 0xF)])
                }
            default: bytes.append(byte)
            }
        }
    }
}
