/// Counts of what became of every line, for logs, `ridegate nmea`'s summary and the health topic.
public struct NMEAStatistics: Sendable, Equatable {
    public var lines = 0
    public var decoded: [String: Int] = [:]
    public var ignored = 0
    public var unknown = 0
    public var tooShort = 0
    public var badChecksum = 0
    public var overlong = 0
    public var collided = 0
    public var junk = 0

    public init() {}

    public mutating func count(_ outcome: NMEALineOutcome) {
        lines += 1
        switch outcome {
        case .decoded(let sentence): decoded[sentence.type, default: 0] += 1
        case .ignored: ignored += 1
        case .unknown: unknown += 1
        case .tooShort: tooShort += 1
        case .rejected(.badChecksum): badChecksum += 1
        case .rejected(.overlong): overlong += 1
        case .rejected(.collided): collided += 1
        case .rejected(.empty): lines -= 1 // blank lines are not lines of data
        case .rejected(.noStartDelimiter), .rejected(.binaryJunk): junk += 1
        }
    }

    public var summary: String {
        let types = decoded.keys.sorted().map { "\($0)=\(decoded[$0] ?? 0)" }.joined(separator: " ")
        return "lines=\(lines) \(types.isEmpty ? "" : types + " ")ignored=\(ignored) unknown=\(unknown) too_short=\(tooShort) bad_checksum=\(badChecksum) overlong=\(overlong) collided=\(collided) junk=\(junk)"
    }
}
