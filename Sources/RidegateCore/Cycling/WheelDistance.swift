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
    /// Revolutions since the last fix, not yet counted: once the fix is `fallbackAfter` old they count too, so
    /// the first seconds of a tunnel are not lost.
    private var sinceFix = 0.0

    init(fallbackAfter: Double) {
        self.fallbackAfter = fallbackAfter
    }

    /// Counts a wheel's new revolutions: the revolutions (and the seconds they took, when they include what was
    /// held back since the last fix) that are the ride's distance now — none while a recent fix measures it.
    mutating func count(sensor id: String, revolutions: Double, seconds: Double, at now: Double) -> (revolutions: Double, seconds: Double) {
        if sensor == nil { sensor = id }
        guard sensor == id else { return (0, 0) }
        window.revolutions += revolutions
        guard let fix = lastFix else { return (revolutions, seconds) }
        guard now - fix.at > fallbackAfter else {
            sinceFix += revolutions
            return (0, 0)
        }
        defer { sinceFix = 0 }
        return sinceFix > 0 ? (revolutions + sinceFix, now - fix.at) : (revolutions, seconds)
    }

    mutating func add(_ fix: GPSFix, at now: Double) {
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude else { return }
        defer {
            lastFix = (latitude, longitude, now)
            sinceFix = 0
        }
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
