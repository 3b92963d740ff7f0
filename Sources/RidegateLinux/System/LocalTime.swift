import Glibc
import RidegateCore

/// Local civil time through the C library (TZ and /etc/localtime), for what a person reads only: payloads and
/// files stay UTC.
public enum LocalTime {
    /// The zone's abbreviation in force at `timestamp` (MDT in June, MST in January, for America/Denver).
    public static func zoneName(at timestamp: Timestamp) -> String {
        var t = time_t(timestamp.secondsSince1970.rounded())
        var parts = tm()
        localtime_r(&t, &parts)
        guard let name = parts.tm_zone else { return "UTC" }
        return String(cString: name)
    }

    /// `2026-06-21 05:32:25 MDT`, or `2026-06-21 5:32:25 AM MDT` on a 12-hour clock.
    public static func format(_ timestamp: Timestamp, clock: DisplayUnits.Clock = .twentyFourHour) -> String {
        var t = time_t(timestamp.secondsSince1970.rounded())
        var parts = tm()
        localtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        // %I is 01-12; the leading zero goes below. %p is AM/PM in the C locale (ridegate never calls setlocale).
        let n = strftime(&buffer, buffer.count, clock == .twelveHour ? "%Y-%m-%d %I:%M:%S %p %Z" : "%Y-%m-%d %H:%M:%S %Z", &parts)
        let text = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard clock == .twelveHour, text.count > 11, text.dropFirst(11).first == "0" else { return text }
        return String(text.prefix(11)) + String(text.dropFirst(12))
    }

    /// Seconds since local midnight at `timestamp` (for a time of day in the user's 12/24-hour clock).
    public static func secondsSinceMidnight(_ timestamp: Timestamp) -> Double {
        var t = time_t(timestamp.secondsSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&t, &parts)
        return Double(parts.tm_hour * 3600 + parts.tm_min * 60 + parts.tm_sec)
    }

    /// Seconds east of UTC in the local zone at `timestamp` (tm_gmtoff): -21600 for MDT.
    public static func utcOffset(at timestamp: Timestamp) -> Int {
        var t = time_t(timestamp.secondsSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&t, &parts)
        return Int(parts.tm_gmtoff)
    }
}
