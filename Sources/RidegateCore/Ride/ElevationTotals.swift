/// Elevation gain and loss from altitude that may be noisy (GPS altitude wanders by several metres while the
/// bike stands still) or smooth (a barometric altimeter, a recorded ride replayed).
///
/// Two steps keep noise out of the totals. Altitude is first smoothed with a time-weighted moving average (a
/// time constant of `smoothingSeconds`, so a 10 Hz receiver and a 1 Hz one smooth alike); then a climb or
/// descent counts only once the smoothed altitude has moved a threshold away from the last turning point
/// (hysteresis). The threshold follows how rough the altitude is — the average size of its second differences,
/// which a steady climb does not have and noise does — between `minimumThreshold` (smooth altitude: rolling
/// hills count) and `maximumThreshold` (GPS noise: a ±3 m wobble adds nothing, a real 30 m climb adds 30 m).
/// Fixes without altitude, or with a horizontal dilution worse than `maximumHDOP`, are skipped.
public struct ElevationTotals: Sendable, Equatable {
    public private(set) var gainMeters: Double = 0
    public private(set) var lossMeters: Double = 0
    public let minimumThreshold: Double
    public let maximumThreshold: Double
    public let smoothingSeconds: Double
    public let maximumHDOP: Double
    private var smoothed: Double?
    private var lastTime: Timestamp?
    /// The last turning point: where the smoothed altitude last changed direction by at least the threshold.
    private var reference: Double?
    /// The last two altitudes as read, for the second difference.
    private var olderRaw: Double?
    private var lastRaw: Double?
    /// The average size of the altitude's second differences, starting as if it were noisy.
    private var roughness: Double

    public init(minimumThreshold: Double = 1, maximumThreshold: Double = 5, smoothingSeconds: Double = 5, maximumHDOP: Double = 5) {
        self.minimumThreshold = minimumThreshold
        self.maximumThreshold = maximumThreshold
        self.smoothingSeconds = smoothingSeconds
        self.maximumHDOP = maximumHDOP
        roughness = maximumThreshold / Self.roughnessFactor
    }

    /// The threshold is this many times the roughness.
    static let roughnessFactor = 2.0
    /// Seconds over which the roughness is averaged.
    static let roughnessSeconds = 60.0

    public var threshold: Double { min(maximumThreshold, max(minimumThreshold, Self.roughnessFactor * roughness)) }

    public mutating func add(altitude: Double?, hdop: Double?, at time: Timestamp) {
        guard let altitude, altitude.isFinite, abs(altitude) < 100_000 else { return }
        if let hdop, !(hdop <= maximumHDOP) { return }
        if let last = lastTime, time <= last { return }
        let value: Double
        if let previous = smoothed, let last = lastTime {
            // Exponential smoothing weighted by the time since the last fix (capped: after a long gap the
            // new altitude simply takes over).
            let dt = time - last
            value = previous + (altitude - previous) * min(1, dt / smoothingSeconds)
            if let a = olderRaw, let b = lastRaw {
                roughness += (abs(altitude - 2 * b + a) - roughness) * min(1, dt / Self.roughnessSeconds)
            }
        } else {
            value = altitude
        }
        olderRaw = lastRaw
        lastRaw = altitude
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
