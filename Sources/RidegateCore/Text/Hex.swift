extension Collection<UInt8> {
    /// Lower-case hex, two digits a byte, no separators: `0648`.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Parses hex digits, ignoring spaces, colons and a `0x` prefix; nil on any other character or an odd count.
    public init?(hex text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in digits.unicodeScalars {
            if scalar == " " || scalar == ":" || scalar == "-" { continue }
            guard scalar.isASCII, let nibble = NMEAFraming.hexValue(UInt8(scalar.value)) else { return nil }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { return nil }
        self = bytes
    }
}
