/// The ride as it goes, for the `ride` and `lap` messages: distance and moving time (GPS, or a wheel while there
/// is no fix), power, heart rate, elevation, time in each zone, and where the current lap began. It starts
/// over when the rider ends the ride.
public struct RideProgress: Sendable {
    /// What a ride's totals start from.
    public struct Rules: Sendable {
        public var autoPauseSpeed: Double
        public var heartRateZones: ZoneBoundaries
        public var powerZones: ZoneBoundaries?
        /// Seconds without a position fix after which a wheel sensor's distance counts for the ride.
        public var wheelFallbackAfter: Double

        public init(autoPauseSpeed: Double, heartRateZones: ZoneBoundaries, powerZones: ZoneBoundaries?, wheelFallbackAfter: Double) {
            self.autoPauseSpeed = autoPauseSpeed
            self.heartRateZones = heartRateZones
            self.powerZones = powerZones
            self.wheelFallbackAfter = wheelFallbackAfter
        }
    }

    /// A lap's own time, moving time and distance.
    public struct LapSplit: Sendable, Equatable {
        public var elapsedSeconds: Double
        public var movingSeconds: Double
        public var distanceMeters: Double
    }

    private let rules: Rules
    private var tracker: RideTracker
    private var power = RidePowerTotals()
    private var elevation = ElevationTotals()
    private var heartRate = HeartRateTotals()
    private var heartRateZoneTime: ZoneTime
    private var powerZoneTime: ZoneTime?
    /// The wheel's calibration outlives a ride: the bike is the same.
    private var wheel: WheelDistance
    private var lapStart: (time: Timestamp?, distance: Double, moving: Double) = (nil, 0, 0)

    public init(rules: Rules) {
        self.rules = rules
        tracker = RideTracker(autoPauseSpeed: rules.autoPauseSpeed)
        heartRateZoneTime = ZoneTime(zones: rules.heartRateZones)
        powerZoneTime = rules.powerZones.map { ZoneTime(zones: $0) }
        wheel = WheelDistance(fallbackAfter: rules.wheelFallbackAfter)
    }

    public var summary: RideTracker.Summary { tracker.summary }

    public var totals: Payloads.RideTotals {
        Payloads.RideTotals(ride: tracker.summary, secondsInZone: heartRateZoneTime.seconds, power: power,
                            secondsInPowerZone: powerZoneTime?.seconds, wheelEstimate: wheel.calibration.estimateMillimetres,
                            heartRate: heartRate, elevation: elevation)
    }

    /// A fix the time reference accepted (`now`: monotonic seconds it came at).
    public mutating func add(_ fix: GPSFix, at ts: Timestamp, now: Double) {
        tracker.add(fix)
        elevation.add(altitude: fix.altitudeMSL, hdop: fix.hdop, at: ts)
        wheel.add(fix, at: now)
    }

    public mutating func add(heartRate bpm: Int, at ts: Timestamp) {
        heartRate.add(bpm)
        heartRateZoneTime.add(value: bpm, at: ts.secondsSince1970)
    }

    public mutating func add(watts: Int, cadenceRPM: Double?, now: Double, at ts: Timestamp) {
        power.add(watts: watts, cadenceRPM: cadenceRPM, at: now, time: ts)
        powerZoneTime?.add(value: watts, at: ts.secondsSince1970)
    }

    /// A wheel's revolutions: the ride's distance while there is no position fix, and the wheel's calibration
    /// against GPS while there is. One wheel counts: the first sensor that reported one. `until`: the GPS time
    /// the revolutions reach, when the clock is trusted (fixes read late that it covers then add no distance).
    mutating func countWheel(_ sensor: SensorRef, _ step: CyclingSensorState.Step, now: Double, until: Timestamp?) {
        guard step.wheelRevolutions > 0 else { return }
        let counted = wheel.count(sensor: sensor.id, revolutions: step.wheelRevolutions, seconds: step.wheelSeconds, at: now)
        guard counted.revolutions > 0 else { return }
        tracker.addWheel(metres: counted.revolutions * sensor.wheelMillimetres / 1000, seconds: counted.seconds, until: until)
    }

    /// The lap that ends at `time` (the whole ride so far for the first); the next begins there.
    public mutating func endLap(at time: Timestamp) -> LapSplit {
        let summary = tracker.summary
        let split = LapSplit(elapsedSeconds: lapStart.time.map { time - $0 } ?? summary.elapsedSeconds,
                             movingSeconds: summary.movingSeconds - lapStart.moving,
                             distanceMeters: summary.distanceMeters - lapStart.distance)
        lapStart = (time, summary.distanceMeters, summary.movingSeconds)
        return split
    }

    /// The rider ended the ride: the totals start again for the next one.
    public mutating func startOver() {
        tracker = RideTracker(autoPauseSpeed: rules.autoPauseSpeed)
        power = RidePowerTotals()
        elevation = ElevationTotals()
        heartRate = HeartRateTotals()
        heartRateZoneTime = ZoneTime(zones: rules.heartRateZones)
        powerZoneTime = rules.powerZones.map { ZoneTime(zones: $0) }
        lapStart = (nil, 0, 0)
    }
}
