/// When the sun is published again for where the rider is, and which position is remembered for the next start.
/// A report is due on the first position, when the solar day changes, when the rider has moved `moveThreshold`
/// metres from where it was last published, and every `interval` seconds (so its countdown moves). A position is
/// remembered when it is a kilometre or more from the one remembered last: a parked bike writes nothing.
struct SunSchedule: Sendable {
    let moveThresholdMeters: Double
    let interval: Double
    let warningLead: Double
    private var lastPublished: (date: CivilDate, latitude: Double, longitude: Double, at: Timestamp)?
    private var remembered: (latitude: Double, longitude: Double)?
    /// Whether the last report warned that sunset is near (the LED says so).
    private(set) var sunsetWarning = false

    init(moveThresholdMeters: Double, interval: Double, warningLead: Double) {
        self.moveThresholdMeters = moveThresholdMeters
        self.interval = interval
        self.warningLead = warningLead
    }

    /// Whether a report has been made yet (a position remembered from an earlier run is only used before one).
    var hasReported: Bool { lastPublished != nil }

    /// A position remembered from an earlier run: not remembered again until the rider is a kilometre from it.
    mutating func recall(latitude: Double, longitude: Double) {
        remembered = (latitude, longitude)
    }

    /// The report for this position, if one is due (`force`: whatever the schedule says), and whether the
    /// position is now to be remembered.
    mutating func report(latitude: Double, longitude: Double, now: Timestamp, force: Bool) -> (SunReport, remember: Bool)? {
        let date = SunCalculator.solarDay(at: now, longitude: longitude)
        if !force, let last = lastPublished {
            let moved = GreatCircle.distanceMeters(lat1: last.latitude, lon1: last.longitude, lat2: latitude, lon2: longitude)
            guard last.date != date || moved >= moveThresholdMeters || now - last.at >= interval else { return nil }
        }
        let report = SunReport(latitude: latitude, longitude: longitude, now: now, warningLead: warningLead)
        lastPublished = (date, latitude, longitude, now)
        sunsetWarning = report.sunsetWarning
        let far = remembered.map {
            GreatCircle.distanceMeters(lat1: $0.latitude, lon1: $0.longitude, lat2: latitude, lon2: longitude) >= 1000
        } ?? true
        if far { remembered = (latitude, longitude) }
        return (report, far)
    }
}
