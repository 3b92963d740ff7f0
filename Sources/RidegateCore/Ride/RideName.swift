/// A ride's name from its first fix, as a rider would say it: "Morning ride 2026-06-21 near 52.52° N 13.41° E".
///
/// The Pi has no time zone it can trust on a ride (often no network, no RTC), so the part of the day and the
/// date are the sun's local time at the start (UTC shifted by longitude / 15 h): a ride at 7 a.m. is a
/// morning ride in Berlin and in Denver alike. The place is the start, rounded to about a kilometre.
public enum RideName {
    /// - Parameter hiding: a start inside one of these zones is not given ("Morning ride 2026-06-21"): the name
    ///   goes wherever the ride goes (`rides/last`, its files, the training sites).
    public static func make(start: Timestamp, latitude: Double, longitude: Double, hiding zones: PrivacyZones = PrivacyZones()) -> String {
        let lon = longitude.isFinite ? max(-180, min(180, longitude)) : 0
        let lat = latitude.isFinite ? max(-90, min(90, latitude)) : 0
        let solar = start + SunCalculator.localMeanTimeOffset(longitude: lon)
        let hour = Int(solar.secondsOfDay / 3600)
        let part = switch hour {
        case 5..<12: "Morning"
        case 12..<17: "Afternoon"
        case 17..<21: "Evening"
        default: "Night"
        }
        let day = "\(part) ride \(solar.iso8601.prefix(10))"
        guard !zones.hides(latitude: latitude, longitude: longitude) else { return day }
        return "\(day) near \(degrees(lat, positive: "N", negative: "S")) \(degrees(lon, positive: "E", negative: "W"))"
    }

    /// A ride with no position at its start (an indoor trainer): "Indoor ride 2026-06-21" (the date in UTC, the
    /// sun's local time needing a longitude). A ride that finds a position later is named again from it.
    public static func make(start: Timestamp) -> String {
        "Indoor ride \(start.iso8601.prefix(10))"
    }

    private static func degrees(_ value: Double, positive: String, negative: String) -> String {
        let hundredths = Int((abs(value) * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)° \(value < 0 ? negative : positive)"
    }
}
