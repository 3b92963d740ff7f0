/// Elevation gain and loss from GPS altitude, which wanders by several metres while the bike stands still.
///
/// Two steps keep that noise out of the totals. Altitude is first smoothed with a time-weighted moving
/// average (a time constant of `smoothingSeconds`, so a 10 Hz receiver and a 1 Hz one smooth alike); then
/// a climb or descent counts only once the smoothed altitude has moved `threshold` metres away from the
/// last turning point (hysteresis), so a ±2 m wobble adds nothing and a real 30 m climb adds 30 m.
/// Fixes without altitude, or with a horizontal dilution worse than `maximumHDOP`, are skipped.
public struct ElevationTotals: Sendable, Equatable {
    public private(set) var gainMeters: Double = 0
    public private(set) var lossMeters: Double = 0
    public let threshold: Double
    public let smoothingSeconds: Double
    public let maximumHDOP: Double
    private var smoothed: Double?
    private var lastTime: Timestamp?
    /// The last turning point: where the smoothed altitude last changed direction by at least `threshold`.
    private var reference: Double?

    public init(threshold: Double = 5, smoothingSeconds: Double = 10, maximumHDOP: Double = 5) {
        self.threshold = threshold
        self.smoothingSeconds = smoothingSeconds
        self.maximumHDOP = maximumHDOP
    }

    public mutating func add(altitude: Double?, hdop: Double?, at time: Timestamp) {
        guard let altitude, altitude.isFinite, abs(altitude) < 100_000 else { return }
        if let hdop, !(hdop <= maximumHDOP) { return }
        if let last = lastTime, time <= last { return }
        let value: Double
        if let previous = smoothed, let last = lastTime {
            // Exponential smoothing weighted by the time since the last fix (capped: after a long gap the
            // new altitude simply takes over).
            let weight = min(1, (time - last) / smoothingSeconds)
            value = previous + (altitude - previous) * weight
        } else {
            value = altitude
        }
        smoothed = value
        lastTime = time
        guard let base = reference else {
            reference = value
            return
        }
        let change = value - base
        if change >= threshold {
            gainMeters += change
            reference = value
        } else if change <= -threshold {
            lossMeters -= change
            reference = value
        }
    }
}
