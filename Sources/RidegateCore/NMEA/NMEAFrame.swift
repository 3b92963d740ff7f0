/// One NMEA 0183 sentence, framed and checksum-verified but not yet decoded: its address (`GPRMC`, `PSRF`)
/// and the comma-separated fields after it, as byte ranges into the line (no copies on the hot path).
///
/// NMEA 0183 v4.11 §5.3: `$` + address + `,` fields + `*` + two hex digits, at most 82 characters with CR LF.
public struct NMEAFrame: Sendable, Equatable {
    public let bytes: [UInt8]
    /// Field ranges into `bytes`; field 0 is the address.
    public let fieldRanges: [Range<Int>]
    /// False when the sentence carried no `*hh` checksum (NMEA 0180-era receivers, some Garmins).
    public let hadChecksum: Bool

    public var fieldCount: Int { fieldRanges.count }

    public func field(_ index: Int) -> ArraySlice<UInt8> {
        guard index < fieldRanges.count else { return [] }
        return bytes[fieldRanges[index]]
    }

    public var address: String { String(decoding: field(0), as: UTF8.self) }

    /// `P` for proprietary sentences (`$PGRME`, `$PSRF…`), else the two-letter talker (`GP`, `GN`, `BD`…).
    public var talker: String {
        let a = field(0)
        guard let first = a.first else { return "" }
        return first == UInt8(ascii: "P") ? "P" : String(decoding: a.prefix(2), as: UTF8.self)
    }

    /// The three-letter sentence type after the talker (`RMC`), or the proprietary address.
    public var sentenceType: String {
        let a = field(0)
        if a.first == UInt8(ascii: "P") { return String(decoding: a, as: UTF8.self) }
        return String(decoding: a.dropFirst(2), as: UTF8.self)
    }
}

/// Why a line is not a usable sentence. Counted by the caller, never fatal.
public enum NMEAFramingError: Error, Equatable, Sendable {
    case empty
    /// No `$` or `!` start delimiter: noise, a partial line after a reconnect, binary protocol bytes.
    case noStartDelimiter
    /// Longer than the limit (NMEA's 82, relaxed for receivers that overrun it).
    case overlong(length: Int)
    case badChecksum(expected: UInt8, computed: UInt8)
    /// A second `$` inside the sentence (two sentences collided when a byte was lost), and no whole,
    /// checksum-valid sentence after it to keep.
    case collided
    /// Bytes outside printable ASCII inside the sentence.
    case binaryJunk
}

public enum NMEAFraming {
    /// Real receivers (Quectel, SiRF with NMEA 4.x patches) exceed 82; gpsd allows more too.
    public static let maximumLength = 120

    /// Frames one line (without its line terminator, or with CR/LF which are trimmed).
    /// - Parameter requireChecksum: when false, a sentence with no `*hh` is accepted (flagged `hadChecksum: false`).
    public static func frame(_ line: [UInt8], requireChecksum: Bool = false) -> Result<NMEAFrame, NMEAFramingError> {
        frame(line[...], requireChecksum: requireChecksum)
    }

    public static func frame(_ line: ArraySlice<UInt8>, requireChecksum: Bool = false) -> Result<NMEAFrame, NMEAFramingError> {
        var bytes = Array(line)
        while let last = bytes.last, last == 0x0D || last == 0x0A || last == 0x20 || last == 0 { bytes.removeLast() }
        guard !bytes.isEmpty else { return .failure(.empty) }
        // Leading noise (a half line from before the port opened, binary protocol bytes) is skipped.
        guard let start = bytes.firstIndex(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "!") }) else {
            return .failure(.noStartDelimiter)
        }
        if start > 0 { bytes.removeFirst(start) }
        guard bytes.count <= maximumLength else { return .failure(.overlong(length: bytes.count)) }

        var computed: UInt8 = 0
        var starIndex: Int?
        var index = 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "*") { starIndex = index; break }
            if byte == UInt8(ascii: "$") {
                // Two sentences collided (a byte was lost): the head has no checksum and is gone, but a whole,
                // checksum-valid sentence after it is kept, as gpsd's lexer keeps it by resyncing on `$`.
                if case .success(let tail) = frame(bytes[index...], requireChecksum: true) { return .success(tail) }
                return .failure(.collided)
            }
            if byte < 0x20 || byte > 0x7E { return .failure(.binaryJunk) }
            computed ^= byte
            index += 1
        }
        let bodyEnd: Int
        var hadChecksum = false
        if let star = starIndex {
            guard bytes.count >= star + 3, let high = hexValue(bytes[star + 1]), let low = hexValue(bytes[star + 2]) else {
                return .failure(.badChecksum(expected: 0, computed: computed))
            }
            // Anything after the checksum other than noise means a collision with the next sentence.
            if bytes.count > star + 3 { return .failure(.collided) }
            let expected = high << 4 | low
            guard expected == computed else { return .failure(.badChecksum(expected: expected, computed: computed)) }
            bodyEnd = star
            hadChecksum = true
        } else {
            if requireChecksum { return .failure(.badChecksum(expected: 0, computed: computed)) }
            bodyEnd = bytes.count
        }

        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(20)
        var fieldStart = 1
        for i in 1..<bodyEnd where bytes[i] == UInt8(ascii: ",") {
            ranges.append(fieldStart..<i)
            fieldStart = i + 1
        }
        ranges.append(fieldStart..<bodyEnd)
        return .success(NMEAFrame(bytes: bytes, fieldRanges: ranges, hadChecksum: hadChecksum))
    }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
