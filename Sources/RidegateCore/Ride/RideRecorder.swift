/// What the ride log keeps of the ride as it happens (pure: every time comes with its call): a point for every
/// fix with a position, and once a second from the sensors while there is none (an indoor trainer, a tunnel),
/// each with the freshest sensor values and the moving flag by `MotionRule`; a lap every `autoLapMeters`; the
/// sensors that ride along. Sensor points made before the clock can be trusted (no GPS fix yet, a rider already
/// pedalling) are held back and dated once it can, from when they were received.
public struct RideRecorder: Sendable {
    /// At most an hour of held-back points (once a second); older ones go first.
    public static let maximumHeld = 3600
    /// A sensor value older than this (monotonic seconds) is not put on a point.
    public static let freshFor = 5.0

    public let motion: MotionRule
    public let autoLapMeters: Double?
    /// Seconds without a position fix after which the sensors make the points.
    public let sensorPointsAfter: Double
    private var heartRate: (value: Int, at: Double)?
    private var power: (value: Int, at: Double)?
    private var cadence: (value: Double, at: Double)?
    private var wheelSpeed: (value: Double, at: Double)?
    private var lastPositionFix: Double?
    private var lastSensorPoint: Timestamp?
    private var lapStartDistance = 0.0
    /// Laps marked in this run, for the announcement's count.
    public private(set) var laps = 0
    private var held: [(received: ReceiveTime, point: RidePoint)] = []

    public init(motion: MotionRule = MotionRule(), autoLapMeters: Double? = nil, sensorPointsAfter: Double = 3) {
        self.motion = motion
        self.autoLapMeters = autoLapMeters
        self.sensorPointsAfter = sensorPointsAfter
    }

    public mutating func heartRate(_ bpm: Int, at now: Double) { heartRate = (bpm, now) }
    public mutating func power(_ watts: Int, at now: Double) { power = (watts, now) }
    public mutating func cadence(_ rpm: Double, at now: Double) { cadence = (rpm, now) }
    public mutating func wheelSpeed(_ metresPerSecond: Double, at now: Double) { wheelSpeed = (metresPerSecond, now) }

    private func fresh<T>(_ value: (value: T, at: Double)?, _ now: Double) -> T? {
        guard let value, now - value.at <= Self.freshFor else { return nil }
        return value.value
    }

    /// A fix with a position: its point (moving as the ride tracker found it), and a lap if the ride passed another
    /// `autoLapMeters`.
    public mutating func fix(_ fix: GPSFix, time: Timestamp, distance: Double, moving: Bool, now: Double) -> [RideLogEntry] {
        guard let latitude = fix.latitude, let longitude = fix.longitude else { return [] }
        lastPositionFix = now
        let point = RidePoint(time: time, latitude: latitude, longitude: longitude, altitude: fix.altitudeMSL, speed: fix.speedMetersPerSecond,
                              distance: distance, moving: moving, heartRate: fresh(heartRate, now), cadence: fresh(cadence, now),
                              power: fresh(power, now))
        return [.point(point)] + autoLap(distance: distance, time: time)
    }

    /// A sensor reading came: with no position fix for `sensorPointsAfter`, a point from the sensors, at most once a
    /// second, moving by the wheel's speed where there is a wheel, else by the pedals.
    /// With `hold`, the point waits for a trusted clock (`release`).
    public mutating func sensors(time: Timestamp, distance: Double, received: ReceiveTime, hold: Bool = false) -> [RideLogEntry] {
        let now = received.monotonicSeconds
        if let fix = lastPositionFix, now - fix <= sensorPointsAfter { return [] }
        if let last = lastSensorPoint, time.secondsSince1970.rounded(.down) <= last.secondsSince1970.rounded(.down), time >= last { return [] }
        lastSensorPoint = time
        let speed = fresh(wheelSpeed, now), rpm = fresh(cadence, now), watts = fresh(power, now)
        let point = RidePoint(time: time, speed: speed, distance: distance, moving: motion.isMoving(speed: speed, cadence: rpm, power: watts),
                              heartRate: fresh(heartRate, now), cadence: rpm, power: watts)
        guard !hold else {
            held.append((received, point))
            if held.count > Self.maximumHeld { held.removeFirst(held.count - Self.maximumHeld) }
            return []
        }
        return [.point(point)] + autoLap(distance: distance, time: time)
    }

    public var hasHeldPoints: Bool { !held.isEmpty }

    /// The held-back points, dated now that the clock can be (`date`: a receive time's UTC). Those dated at or after
    /// `firstFix` (the GPS time of the first fix the clock was established by) are dropped: the fixes cover that
    /// time. (Fixes read late, in a burst, date the points before them later than they came: such a point would
    /// come after the ride's first fix and split the ride.)
    public mutating func release(before firstFix: Timestamp? = nil, dating date: (ReceiveTime) -> Timestamp) -> [RideLogEntry] {
        defer { held.removeAll() }
        var last: Timestamp?
        return held.compactMap { entry in
            var point = entry.point
            point.time = date(entry.received)
            if let firstFix, point.time >= firstFix { return nil }
            guard last.map({ point.time.secondsSince1970.rounded(.down) > $0.secondsSince1970.rounded(.down) }) ?? true else { return nil }
            last = point.time
            return .point(point)
        }
    }

    private mutating func autoLap(distance: Double, time: Timestamp) -> [RideLogEntry] {
        guard let every = autoLapMeters, every > 0, distance - lapStartDistance >= every else { return [] }
        lapStartDistance += every * ((distance - lapStartDistance) / every).rounded(.down)
        laps += 1
        return [.lap(LapMark(time: time, trigger: .distance))]
    }

    /// The rider pressed the lap button.
    public mutating func manualLap(time: Timestamp, distance: Double) -> [RideLogEntry] {
        lapStartDistance = distance
        laps += 1
        return [.lap(LapMark(time: time, trigger: .manual))]
    }

    /// The rider ended the ride: laps count from 0 again.
    public mutating func endRide(time: Timestamp) -> [RideLogEntry] {
        lapStartDistance = 0
        laps = 0
        return [.end(time)]
    }
}
