/// Reads a FIT file (Garmin's Flexible and Interoperable Data Transfer protocol, as head units write their
/// activities) into its messages: the 12- or 14-byte header, definition and data messages (both byte orders),
/// compressed-timestamp headers, developer fields (skipped), and the CRC-16 that ends the file. Field values
/// are kept raw (integers, arrays, text); `FITActivityRecords` gives them meaning. Outside bytes: every length
/// is checked, nothing is trusted.
public enum FITDecoder {
    public struct Message: Sendable, Equatable {
        public var global: UInt16
        public var fields: [UInt8: FITValue]

        public func integer(_ field: UInt8) -> Int64? { fields[field]?.integer }
        public func text(_ field: UInt8) -> String? { fields[field]?.text }
    }

    public static func decode(_ bytes: [UInt8]) throws(FITDecodingError) -> [Message] {
        guard bytes.count >= 12 else { throw .truncated(at: 0) }
        let headerSize = Int(bytes[0])
        guard headerSize == 12 || headerSize == 14, bytes.count >= headerSize,
              bytes[8] == UInt8(ascii: "."), bytes[9] == UInt8(ascii: "F"), bytes[10] == UInt8(ascii: "I"), bytes[11] == UInt8(ascii: "T")
        else { throw .notFIT }
        let dataSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let end = headerSize + dataSize
        guard end + 2 <= bytes.count else { throw .truncated(at: bytes.count) }
        let expected = UInt16(bytes[end]) | UInt16(bytes[end + 1]) << 8
        let computed = FITEncoder.crc(Array(bytes[0..<end]))
        guard expected == computed || expected == 0 else { throw .badCRC(expected: expected, computed: computed) }
        var reader = Reader(bytes: bytes, offset: headerSize, end: end)
        return try reader.messages()
    }

    /// One definition: where each field is in a data message of its local type.
    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [(number: UInt8, size: Int, baseType: UInt8)]
        var developerBytes: Int
    }

    struct Reader {
        let bytes: [UInt8]
        var offset: Int
        let end: Int
        var definitions: [Definition?] = Array(repeating: nil, count: 16)
        var lastTimestamp: UInt32?

        mutating func messages() throws(FITDecodingError) -> [Message] {
            var messages: [Message] = []
            while offset < end {
                let header = try byte()
                if header & 0x80 != 0 {
                    // Compressed timestamp header: local type in bits 5-6, a 5-bit offset from the last timestamp.
                    let local = Int((header >> 5) & 0x03)
                    var message = try data(local: local, at: offset - 1)
                    if let last = lastTimestamp {
                        let low = UInt32(header & 0x1F)
                        var time = (last & ~0x1F) | low
                        if low < last & 0x1F { time &+= 0x20 }
                        lastTimestamp = time
                        message.fields[253] = .unsigned(UInt64(time))
                    }
                    messages.append(message)
                } else if header & 0x40 != 0 {
                    try define(local: Int(header & 0x0F), developer: header & 0x20 != 0)
                } else {
                    let message = try data(local: Int(header & 0x0F), at: offset - 1)
                    if let time = message.integer(253), let stamp = UInt32(exactly: time) { lastTimestamp = stamp }
                    messages.append(message)
                }
            }
            return messages
        }

        mutating func byte() throws(FITDecodingError) -> UInt8 {
            guard offset < end else { throw .truncated(at: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func define(local: Int, developer: Bool) throws(FITDecodingError) {
            _ = try byte() // reserved
            let bigEndian = try byte() == 1
            let a = UInt16(try byte()), b = UInt16(try byte())
            let count = Int(try byte())
            var fields: [(UInt8, Int, UInt8)] = []
            fields.reserveCapacity(count)
            for _ in 0..<count { fields.append((try byte(), Int(try byte()), try byte())) }
            var developerBytes = 0
            if developer {
                let developerCount = Int(try byte())
                for _ in 0..<developerCount {
                    _ = try byte()
                    developerBytes += Int(try byte())
                    _ = try byte()
                }
            }
            definitions[local] = Definition(global: bigEndian ? a << 8 | b : b << 8 | a, bigEndian: bigEndian,
                                            fields: fields, developerBytes: developerBytes)
        }

        mutating func data(local: Int, at start: Int) throws(FITDecodingError) -> Message {
            guard let definition = definitions[local] else { throw .undefinedLocalType(local: local, at: start) }
            var message = Message(global: definition.global, fields: [:])
            for field in definition.fields {
                guard offset + field.size <= end else { throw .truncated(at: offset) }
                let value = FITValue(bytes[offset..<offset + field.size], baseType: field.baseType, bigEndian: definition.bigEndian)
                if let value { message.fields[field.number] = value }
                offset += field.size
            }
            guard offset + definition.developerBytes <= end else { throw .truncated(at: offset) }
            offset += definition.developerBytes
            return message
        }
    }
}

/// Why a file is not a FIT file ridegate can read.
public enum FITDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFIT
    case truncated(at: Int)
    case badCRC(expected: UInt16, computed: UInt16)
    case undefinedLocalType(local: Int, at: Int)

    public var description: String {
        switch self {
        case .notFIT: "not a FIT file (no \".FIT\" header)"
        case .truncated(let at): "the file ends too early (byte \(at)): it was cut short"
        case .badCRC(let expected, let computed): "the file's CRC is \(expected), its bytes give \(computed): it is damaged"
        case .undefinedLocalType(let local, let at): "a data message at byte \(at) uses local type \(local) before any definition of it"
        }
    }
}
