/// One field's value in a FIT data message, by its base type; a field holding its type's "invalid" value (the
/// profile's way of saying "no value") is no value at all.
public enum FITValue: Sendable, Equatable {
    case integer(Int64)
    case unsigned(UInt64)
    case float(Double)
    case text(String)
    /// A field of several values of its base type (an array), each nil where invalid.
    case array([Int64?])

    public var integer: Int64? {
        switch self {
        case .integer(let v): v
        case .unsigned(let v): Int64(exactly: v)
        case .float(let v): v.isFinite && abs(v) < 9e18 ? Int64(v) : nil
        case .text, .array: nil
        }
    }

    public var text: String? {
        if case .text(let t) = self { return t }
        return nil
    }

    /// Base types (FIT protocol 2.0): the size of one value, whether it is signed, and its invalid value.
    private struct BaseType {
        var size: Int
        var signed: Bool
        var float: Bool
        var invalid: UInt64
        /// The "z" types: 0 is invalid.
        var zeroInvalid: Bool
    }

    private static func baseType(_ code: UInt8) -> BaseType? {
        switch code & 0x1F {
        case 0x00: BaseType(size: 1, signed: false, float: false, invalid: 0xFF, zeroInvalid: false) // enum
        case 0x01: BaseType(size: 1, signed: true, float: false, invalid: 0x7F, zeroInvalid: false)
        case 0x02: BaseType(size: 1, signed: false, float: false, invalid: 0xFF, zeroInvalid: false)
        case 0x03: BaseType(size: 2, signed: true, float: false, invalid: 0x7FFF, zeroInvalid: false)
        case 0x04: BaseType(size: 2, signed: false, float: false, invalid: 0xFFFF, zeroInvalid: false)
        case 0x05: BaseType(size: 4, signed: true, float: false, invalid: 0x7FFF_FFFF, zeroInvalid: false)
        case 0x06: BaseType(size: 4, signed: false, float: false, invalid: 0xFFFF_FFFF, zeroInvalid: false)
        case 0x08: BaseType(size: 4, signed: false, float: true, invalid: 0xFFFF_FFFF, zeroInvalid: false)
        case 0x09: BaseType(size: 8, signed: false, float: true, invalid: UInt64.max, zeroInvalid: false)
        case 0x0A: BaseType(size: 1, signed: false, float: false, invalid: 0, zeroInvalid: true)
        case 0x0B: BaseType(size: 2, signed: false, float: false, invalid: 0, zeroInvalid: true)
        case 0x0C: BaseType(size: 4, signed: false, float: false, invalid: 0, zeroInvalid: true)
        case 0x0D: BaseType(size: 1, signed: false, float: false, invalid: 0xFF, zeroInvalid: false) // byte
        case 0x0E: BaseType(size: 8, signed: true, float: false, invalid: 0x7FFF_FFFF_FFFF_FFFF, zeroInvalid: false)
        case 0x0F: BaseType(size: 8, signed: false, float: false, invalid: UInt64.max, zeroInvalid: false)
        case 0x10: BaseType(size: 8, signed: false, float: false, invalid: 0, zeroInvalid: true)
        default: nil
        }
    }

    /// The value of a field's bytes, or nil when it is invalid, of an unknown base type, or of a size that is not
    /// a whole number of its values.
    public init?(_ bytes: ArraySlice<UInt8>, baseType code: UInt8, bigEndian: Bool) {
        if code & 0x1F == 0x07 {
            let text = bytes.prefix { $0 != 0 }
            guard !text.isEmpty else { return nil }
            self = .text(String(decoding: text, as: UTF8.self))
            return
        }
        guard let type = Self.baseType(code), !bytes.isEmpty, bytes.count % type.size == 0 else { return nil }
        var values: [Int64?] = []
        var single: FITValue?
        var start = bytes.startIndex
        while start < bytes.endIndex {
            var raw: UInt64 = 0
            for i in 0..<type.size {
                let byte = UInt64(bytes[start + (bigEndian ? i : type.size - 1 - i)])
                raw = raw << 8 | byte
            }
            start += type.size
            let invalid = type.zeroInvalid ? raw == 0 : raw == type.invalid
            var value: FITValue?
            if !invalid {
                if type.float {
                    value = .float(type.size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw))
                } else if type.signed {
                    let shift = UInt64(64 - type.size * 8)
                    value = .integer(Int64(bitPattern: raw << shift) >> Int64(shift))
                } else {
                    value = .unsigned(raw)
                }
            }
            if bytes.count == type.size { single = value } else { values.append(value?.integer) }
        }
        if bytes.count == type.size {
            guard let single else { return nil }
            self = single
        } else {
            self = .array(values)
        }
    }
}
