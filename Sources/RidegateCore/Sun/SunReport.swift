/// The sun as a rider needs it now: today's events for the position, and how long until dark.
public struct SunReport: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    /// The local mean solar day the events belong to.
    public var date: CivilDate
    public var day: SunCalculator.Day
    public var secondsToSunset: Double?
    public var secondsToCivilDusk: Double?
    public var sunsetWarning: Bool

    /// - Parameter warningLead: seconds before sunset at which the warning is raised.
    public init(latitude: Double, longitude: Double, now: Timestamp, warningLead: Double) {
        self.latitude = latitude
        self.longitude = longitude
        // The solar day whose window holds `now`.
        date = SunCalculator.solarDay(at: now, longitude: longitude)
        day = SunCalculator.day(date: date, latitude: latitude, longitude: longitude)
        secondsToSunset = day.sun.set.flatMap { $0 > now ? $0 - now : nil }
        secondsToCivilDusk = day.civil.set.flatMap { $0 > now ? $0 - now : nil }
        sunsetWarning = secondsToSunset.map { $0 <= warningLead } ?? false
    }

    /// `positionHidden`: the position is inside a privacy zone, so `lat` and `lon` are null (the times stay: they
    /// place the rider no closer than a few kilometres).
    public func payload(ts: Timestamp, seq: Int, clockTrusted: Bool, positionHidden: Bool = false) -> String {
        var w = JSONObjectWriter(capacity: 512)
        w.add("ts", ts.iso8601)
        w.add("seq", seq)
        w.add("lat", positionHidden ? nil : latitude, decimals: 4)
        w.add("lon", positionHidden ? nil : longitude, decimals: 4)
        w.add("date", date.description)
        w.add("status", day.sun.status.rawValue)
        w.add("civil_status", day.civil.status.rawValue)
        w.add("sunrise", day.sun.rise?.iso8601)
        w.add("sunset", day.sun.set?.iso8601)
        w.add("solar_noon", day.solarNoon?.iso8601)
        w.add("civil_dawn", day.civil.rise?.iso8601)
        w.add("civil_dusk", day.civil.set?.iso8601)
        w.add("nautical_dawn", day.nautical.rise?.iso8601)
        w.add("nautical_dusk", day.nautical.set?.iso8601)
        w.add("day_length_s", day.dayLengthSeconds, decimals: 0)
        w.add("seconds_to_sunset", secondsToSunset, decimals: 0)
        w.add("seconds_to_civil_dusk", secondsToCivilDusk, decimals: 0)
        w.add("sunset_warning", sunsetWarning)
        w.add("clock_trusted", clockTrusted)
        return w.finish()
    }
}
