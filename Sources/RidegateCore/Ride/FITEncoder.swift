/// FIT's framing, written as it goes: the 14-byte header (whose data size must be known first), definition and
/// data messages, and the CRC-16 that ends the file, kept running over every byte. The caller takes the bytes
/// written so far (`take`) and writes them out, so a file never has to be whole in memory.
struct FITEncoder {
    enum BaseType: UInt8 {
        case enumeration = 0x00, uint8 = 0x02, uint16 = 0x84, sint32 = 0x85, uint32 = 0x86, string = 0x07, uint8z = 0x0A, uint32z = 0x8C

        var size: Int {
            switch self {
            case .enumeration, .uint8, .uint8z, .string: 1
            case .uint16: 2
            case .sint32, .uint32, .uint32z: 4
            }
        }
    }

    /// One message's fields: (field number, size in bytes, base type).
    typealias Layout = [(number: UInt8, size: Int, type: BaseType)]

    /// A data message's field values, little-endian, in the order of its layout.
    struct Fields {
        var bytes: [UInt8] = []
        mutating func u8(_ v: UInt8) { bytes.append(v) }
        mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        mutating func u32(_ v: UInt32) { bytes += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
        mutating func s32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
        /// Text in a fixed-size field: cut to fit (on a character boundary), NUL-padded.
        mutating func text(_ value: String?, size: Int) {
            var utf8 = Array((value ?? "").utf8.prefix(size - 1))
            while let last = utf8.last, last & 0xC0 == 0x80 { utf8.removeLast() } // no half a character
            if let last = utf8.last, last >= 0xC0 { utf8.removeLast() }
            bytes += utf8 + [UInt8](repeating: 0, count: size - utf8.count)
        }
    }

    private(set) var output: [UInt8] = []
    private var crc: UInt16 = 0

    /// The header for `dataSize` bytes of messages (protocol 2.0, profile 21.40) and its own CRC.
    init(dataSize: Int) {
        let size = UInt32(clamping: dataSize)
        var header: [UInt8] = [14, 0x20, UInt8(2140 & 0xFF), UInt8(2140 >> 8),
                               UInt8(size & 0xFF), UInt8((size >> 8) & 0xFF), UInt8((size >> 16) & 0xFF), UInt8(size >> 24)]
        header += Array(".FIT".utf8)
        let headerCRC = Self.crc(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        append(header)
    }

    /// Bytes a definition takes, and a data message of the layout.
    static func definitionSize(_ layout: Layout) -> Int { 6 + 3 * layout.count }
    static func messageSize(_ layout: Layout) -> Int { 1 + layout.reduce(0) { $0 + $1.size } }

    mutating func define(local: UInt8, global: UInt16, _ layout: Layout) {
        var bytes: [UInt8] = [0x40 | local, 0, 0, UInt8(global & 0xFF), UInt8(global >> 8), UInt8(layout.count)]
        for field in layout { bytes += [field.number, UInt8(field.size), field.type.rawValue] }
        append(bytes)
    }

    mutating func data(local: UInt8, _ fill: (inout Fields) -> Void) {
        var fields = Fields()
        fill(&fields)
        append([local] + fields.bytes)
    }

    /// The file's CRC, after the last message.
    mutating func finish() {
        let final = crc
        append([UInt8(final & 0xFF), UInt8(final >> 8)])
    }

    /// The bytes written since the last call.
    mutating func take() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    private mutating func append(_ bytes: [UInt8]) {
        crc = Self.crc(bytes, from: crc)
        output += bytes
    }

    /// FIT's CRC-16 (the SDK's nibble table), continued from `crc`.
    static func crc(_ bytes: [UInt8], from start: UInt16 = 0) -> UInt16 {
        let table: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                               0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
        var crc = start
        for byte in bytes {
            var tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int(byte & 0xF)]
            tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int((byte >> 4) & 0xF)]
        }
        return crc
    }
}
