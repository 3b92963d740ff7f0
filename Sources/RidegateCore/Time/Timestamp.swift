/// A point in UTC time, seconds since 1970-01-01T00:00:00Z (leap seconds ignored, as in POSIX time).
///
/// The core never reads a clock: every timestamp comes in with the event that carries it.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var secondsSince1970: Double

    public init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    public init(date: CivilDate, secondsOfDay: Double) {
        secondsSince1970 = Double(date.daysSince1970) * 86_400 + secondsOfDay
    }

    public var date: CivilDate { CivilDate(daysSince1970: Int((secondsSince1970 / 86_400).rounded(.down))) }

    public var secondsOfDay: Double {
        secondsSince1970 - Double(date.daysSince1970) * 86_400
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    public static func + (lhs: Timestamp, seconds: Double) -> Timestamp {
        Timestamp(secondsSince1970: lhs.secondsSince1970 + seconds)
    }

    public static func - (lhs: Timestamp, rhs: Timestamp) -> Double { lhs.secondsSince1970 - rhs.secondsSince1970 }

    /// ISO 8601 UTC with milliseconds: `2026-06-21T07:00:00.000Z`.
    public var iso8601: String {
        // Held within ±2^62 ms (146 million years) so the arithmetic below cannot overflow; NaN reads as the epoch.
        let millis = Int64(Int(rounding: (secondsSince1970 * 1000).rounded(.down), within: -(1 << 62)...(1 << 62)) ?? 0)
        let days = Int((Double(millis) / 86_400_000).rounded(.down))
        var msOfDay = Int(millis - Int64(days) * 86_400_000)
        let hour = msOfDay / 3_600_000
        msOfDay -= hour * 3_600_000
        let minute = msOfDay / 60_000
        msOfDay -= minute * 60_000
        let second = msOfDay / 1000
        let ms = msOfDay - second * 1000
        let date = CivilDate(daysSince1970: days)
        if (0...9999).contains(date.year) {
            // Every payload carries one: 24 digits and marks written in place, not a dozen string appends.
            return String(unsafeUninitializedCapacity: 24) { text in
                func put(_ value: Int, width: Int, at start: Int) {
                    var rest = value
                    for index in (start..<start + width).reversed() {
                        text[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                        rest /= 10
                    }
                }
                put(date.year, width: 4, at: 0)
                put(date.month, width: 2, at: 5)
                put(date.day, width: 2, at: 8)
                put(hour, width: 2, at: 11)
                put(minute, width: 2, at: 14)
                put(second, width: 2, at: 17)
                put(ms, width: 3, at: 20)
                (text[4], text[7], text[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
                (text[13], text[16], text[19], text[23]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "Z"))
                return 24
            }
        }
        var text = date.description
        text.reserveCapacity(24)
        text.append("T")
        appendPadded(hour, width: 2, to: &text)
        text.append(":")
        appendPadded(minute, width: 2, to: &text)
        text.append(":")
        appendPadded(second, width: 2, to: &text)
        text.append(".")
        appendPadded(ms, width: 3, to: &text)
        text.append("Z")
        return text
    }

    public var description: String { iso8601 }

    /// Parses what `iso8601` writes (`2026-06-21T07:00:00.000Z`; the fraction is optional, the zone is Z).
    public init?(iso8601 text: String) {
        let halves = text.split(separator: "T", omittingEmptySubsequences: false)
        guard halves.count == 2, let date = CivilDate(iso: String(halves[0])), halves[1].hasSuffix("Z") else { return nil }
        let clock = halves[1].dropLast().split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock[0].count == 2, clock[1].count == 2, clock[2].count >= 2,
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Double(clock[2]),
              (0..<24).contains(hour), (0..<60).contains(minute), second >= 0, second < 61 else { return nil }
        self.init(date: date, secondsOfDay: Double(hour * 3600 + minute * 60) + second)
    }
}
