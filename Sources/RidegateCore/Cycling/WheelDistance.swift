/// The ride's wheel: which sensor's wheel counts (the first that reported one; a power meter's wheel data
/// and a hub sensor on the same bike must not count twice), whether a position fix is recent enough that
/// GPS measures the ride, and the wheel's calibration against GPS.
///
/// Calibration compares windows of about ten seconds, not single fixes: a wheel sensor notifies about once
/// a second and a receiver up to ten times, so one fix's step rarely holds a whole number of revolutions.
/// A window with any poor fix (HDOP, slow, a gap) is thrown away.
struct WheelDistance: Sendable {
    static let windowSeconds = 10.0

    let fallbackAfter: Double
    private(set) var sensor: String?
    private(set) var calibration = WheelCalibration()
    private var lastFix: (latitude: Double, longitude: Double, at: Double)?
    private var window = (metres: 0.0, revolutions: 0.0, since: 0.0, good: false)

    init(fallbackAfter: Double) {
        self.fallbackAfter = fallbackAfter
    }

    /// Counts a wheel's new revolutions; true when they are the ride's distance (no recent position fix).
    mutating func count(sensor id: String, revolutions: Double, at now: Double) -> Bool {
        if sensor == nil { sensor = id }
        guard sensor == id else { return false }
        window.revolutions += revolutions
        guard let fix = lastFix else { return true }
        return now - fix.at > fallbackAfter
    }

    mutating func add(_ fix: GPSFix, at now: Double) {
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude else { return }
        defer { lastFix = (latitude, longitude, now) }
        let good = (fix.hdop ?? .infinity) < WheelCalibration.maximumHDOP && (fix.speedMetersPerSecond ?? 0) >= WheelCalibration.minimumSpeed
        guard let last = lastFix, now - last.at <= fallbackAfter, sensor != nil else {
            window = (0, 0, now, good)
            return
        }
        window.metres += GreatCircle.distanceMeters(lat1: last.latitude, lon1: last.longitude, lat2: latitude, lon2: longitude)
        window.good = window.good && good
        guard now - window.since >= Self.windowSeconds else { return }
        if window.good {
            calibration.add(goodStretchMetres: window.metres, wheelRevolutions: window.revolutions)
        }
        window = (0, 0, now, good)
    }
}
