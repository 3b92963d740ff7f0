/// Distance, moving time and speeds for one ride, from successive fixes.
///
/// The classic bug is a distance that grows while the bike stands still, because every fix jitters a few
/// metres. Here a fix adds distance only while the bike is moving (speed at or above the auto-pause
/// threshold); while paused the last moving position stays the anchor, so on restart the first leg is
/// measured from where the bike really stopped, and jitter around the stop never accumulates.
///
/// Across a gap in the fixes (longer than `maximumGapSeconds`: a tunnel, a cold start, a stalled reader, a head
/// unit that stopped recording while auto-paused) the straight line counts only where it is plausible riding:
/// an implied speed from the auto-pause speed to `maximumRidingSpeed`, and at least half the ride's average moving
/// speed so far (a tunnel is ridden at about the ride's pace; positions that drifted or rolled 30–50 m while the
/// rider stood a minute are not). Otherwise the new position is marked without distance: a gap never invents
/// distance, at the cost of a slow tunnel's. A gap's time is never moving time.
public struct RideTracker: Sendable {
    public struct Summary: Sendable, Equatable {
        public var distanceMeters: Double = 0
        public var movingSeconds: Double = 0
        public var elapsedSeconds: Double = 0
        public var maxSpeedMetersPerSecond: Double = 0
        public var isMoving = false
        public var speedMetersPerSecond: Double?
        /// The part of `distanceMeters` measured by a wheel sensor while there was no position fix.
        public var wheelDistanceMeters: Double = 0

        public var averageMovingSpeedMetersPerSecond: Double {
            movingSeconds > 0 ? distanceMeters / movingSeconds : 0
        }
    }

    public let autoPauseSpeed: Double
    /// A gap longer than this (tunnel, unplugged receiver) is not counted as moving time.
    public let maximumGapSeconds: Double
    /// Faster than this (m/s, 108 km/h) across a gap is a jump, not riding.
    public static let maximumRidingSpeed = 30.0
    public private(set) var summary = Summary()
    /// The last moving position, which the next leg is measured from.
    private var anchor: (lat: Double, lon: Double, time: Timestamp)?
    private var previousTime: Timestamp?
    private var startTime: Timestamp?
    /// How far (GPS time) a wheel has measured the ride: fixes dated up to then, read late (a stalled reader, a
    /// burst), mark where the bike was but add nothing the wheel already counted.
    private var wheelUntil: Timestamp?

    public init(autoPauseSpeed: Double = 1.0, maximumGapSeconds: Double = 10) {
        self.autoPauseSpeed = autoPauseSpeed
        self.maximumGapSeconds = maximumGapSeconds
    }

    public mutating func add(_ fix: GPSFix) {
        guard fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude, let time = fix.time else { return }
        if let previous = previousTime, time <= previous { return } // a repeated or out-of-order epoch
        if startTime == nil { startTime = time }
        summary.elapsedSeconds = time - (startTime ?? time)

        var speed = fix.speedMetersPerSecond
        if speed == nil, let a = anchor, time - a.time > 0 {
            // No speed over ground in this epoch: derive it from the positions.
            speed = GreatCircle.distanceMeters(lat1: a.lat, lon1: a.lon, lat2: lat, lon2: lon) / (time - a.time)
        }
        let moving = (speed ?? 0) >= autoPauseSpeed
        summary.speedMetersPerSecond = speed
        summary.isMoving = moving
        if let until = wheelUntil, time <= until {
            anchor = (lat, lon, time)
            previousTime = time
            return
        }

        let gap = previousTime.map { time - $0 } ?? 0
        if moving {
            if let a = anchor {
                let leg = GreatCircle.distanceMeters(lat1: a.lat, lon1: a.lon, lat2: lat, lon2: lon)
                if gap <= maximumGapSeconds || isRiding(leg, seconds: time - a.time) { summary.distanceMeters += leg }
            }
            if previousTime != nil, gap <= maximumGapSeconds { summary.movingSeconds += gap }
            summary.maxSpeedMetersPerSecond = max(summary.maxSpeedMetersPerSecond, speed ?? 0)
            anchor = (lat, lon, time)
        } else if anchor == nil || gap > maximumGapSeconds {
            anchor = (lat, lon, time)
        }
        previousTime = time
    }

    /// Whether `leg` metres in `seconds`, across a gap, is plausibly ridden.
    private func isRiding(_ leg: Double, seconds: Double) -> Bool {
        guard seconds > 0, leg.isFinite else { return false }
        let implied = leg / seconds
        return implied >= autoPauseSpeed && implied <= Self.maximumRidingSpeed && implied >= 0.5 * summary.averageMovingSpeedMetersPerSecond
    }

    /// Distance from a wheel sensor while there is no position fix (a tunnel, a forest): counted like GPS
    /// distance, only while moving. The next fix starts a new leg where it is, so no stretch counts twice.
    public mutating func addWheel(metres: Double, seconds: Double, until: Timestamp? = nil) {
        guard metres.isFinite, seconds.isFinite, metres >= 0, seconds > 0 else { return }
        let speed = metres / seconds
        summary.speedMetersPerSecond = speed
        summary.isMoving = speed >= autoPauseSpeed
        guard summary.isMoving else { return }
        summary.distanceMeters += metres
        summary.wheelDistanceMeters += metres
        if seconds <= maximumGapSeconds { summary.movingSeconds += seconds }
        summary.maxSpeedMetersPerSecond = max(summary.maxSpeedMetersPerSecond, speed)
        anchor = nil
        if let until { wheelUntil = max(wheelUntil ?? until, until) }
    }
}
