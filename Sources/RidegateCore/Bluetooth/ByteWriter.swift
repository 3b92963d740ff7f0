/// Little-endian encodings of characteristic values (what the demo's simulated sensors send).
enum ByteWriter {
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func i16(_ v: Int16) -> [UInt8] { u16(UInt16(bitPattern: v)) }
    static func u32(_ v: UInt32) -> [UInt8] { u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
}
