/// Little-endian reads of a characteristic value or PDU that never run past the end: callers check
/// `remaining` (or `has`) before reading; a read past the end gives zeros rather than a trap.
struct ByteReader {
    private let bytes: [UInt8]
    private var index: Int

    init(_ bytes: [UInt8], from start: Int = 0) {
        self.bytes = bytes
        index = min(start, bytes.count)
    }

    var remaining: Int { bytes.count - index }

    func has(_ count: Int) -> Bool { remaining >= count }

    mutating func u8() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }

    mutating func i16() -> Int16 { Int16(bitPattern: u16()) }

    mutating func u24() -> UInt32 { UInt32(u8()) | UInt32(u8()) << 8 | UInt32(u8()) << 16 }

    mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }

    mutating func take(_ n: Int) -> ArraySlice<UInt8> {
        let end = min(bytes.count, index + max(0, n))
        defer { index = end }
        return bytes[index..<end]
    }
}
