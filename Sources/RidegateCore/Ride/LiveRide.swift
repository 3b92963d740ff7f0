/// The ride as the core follows it: its live totals and laps (`RideProgress`), what the ride log keeps of it
/// (`RideRecorder`), each cycling sensor's state, and the zones shown. Every reading goes through here once;
/// what comes back is what the ride log gets.
struct LiveRide: Sendable {
    /// Whether the sensors make the ride log's points (no position fix), and whether those wait for a first fix
    /// to date them (a GPS configured, its time not yet trusted: a Pi may think it is 1970).
    struct SensorPoints {
        var positionFix: Bool
        var hold: Bool
    }

    private(set) var progress: RideProgress
    private var recorder: RideRecorder
    private var cycling: CyclingSensors
    private var heartRateZone: ZoneTracker
    /// The demo's recording has played to its end: readings still in flight from its simulated sensors (on a busy
    /// machine they come after the end) make no points, which would start a second ride of a few seconds.
    private var recordingOver = false
    /// Where a ride that stands ends at once (the zones marked home), and since when it has stood in one.
    private let zones: PrivacyZones
    private var standingAtHomeSince: Timestamp?

    init(settings: GatewayCore.Settings) {
        progress = RideProgress(rules: .init(autoPauseSpeed: settings.autoPauseSpeed, heartRateZones: settings.zones,
                                             powerZones: settings.powerZones, wheelFallbackAfter: settings.wheelFallbackAfter))
        recorder = RideRecorder(motion: MotionRule(autoPauseSpeed: settings.autoPauseSpeed), autoLapMeters: settings.autoLapMeters,
                                sensorPointsAfter: settings.wheelFallbackAfter)
        cycling = CyclingSensors(powerZone: settings.powerZones.map {
            ZoneTracker(zones: $0, margin: settings.powerZoneMarginWatts, dwellSeconds: settings.powerZoneDwellSeconds, target: .latest)
        })
        heartRateZone = ZoneTracker(zones: settings.zones, margin: settings.zoneMarginBPM, dwellSeconds: settings.zoneDwellSeconds)
        zones = settings.privacyZones
    }

    var summary: RideTracker.Summary { progress.summary }
    var laps: Int { recorder.laps }
    var hasHeldPoints: Bool { recorder.hasHeldPoints }
    /// The zones shown now, and of how many.
    var shownHeartRateZone: (zone: Int, of: Int)? { heartRateZone.zone.map { ($0, heartRateZone.zones.count) } }
    var shownPowerZone: (zone: Int, of: Int)? {
        guard let tracker = cycling.powerZone, let zone = tracker.zone else { return nil }
        return (zone, tracker.zones.count)
    }

    /// A fix with a position whose time the reference accepted.
    mutating func fix(_ fix: GPSFix, at ts: Timestamp, now: Double) -> [RideLogEntry] {
        progress.add(fix, at: ts, now: now)
        return recorder.fix(fix, time: ts, distance: progress.summary.distanceMeters, moving: progress.summary.isMoving, now: now)
    }

    /// A heart rate with skin contact: the zone shown after it.
    mutating func heartRate(_ bpm: Int, at ts: Timestamp, received: ReceiveTime, points: SensorPoints) -> (zone: Int, log: [RideLogEntry]) {
        recorder.heartRate(bpm, at: received.monotonicSeconds)
        let log = sensorPoints(ts: ts, received: received, points)
        progress.add(heartRate: bpm, at: ts)
        return (heartRateZone.update(value: bpm, at: ts), log)
    }

    mutating func power(_ sensor: SensorRef, _ m: CyclingPowerMeasurement, at ts: Timestamp, received: ReceiveTime, points: SensorPoints,
                        clockTrusted: Bool) -> (reading: CyclingSensors.PowerReading, log: [RideLogEntry]) {
        let now = received.monotonicSeconds
        let reading = cycling.power(sensor, m, now: now, at: ts)
        progress.add(watts: m.powerWatts, cadenceRPM: reading.step.cadence, now: now, at: ts)
        recorder.power(m.powerWatts, at: now)
        return (reading, cyclingStep(sensor, reading.step, ts: ts, received: received, points, clockTrusted: clockTrusted))
    }

    mutating func speedCadence(_ sensor: SensorRef, _ m: CyclingSpeedCadenceMeasurement, at ts: Timestamp, received: ReceiveTime,
                               points: SensorPoints, clockTrusted: Bool) -> (step: CyclingSensorState.Step, log: [RideLogEntry]) {
        let step = cycling.speedCadence(sensor, m, now: received.monotonicSeconds)
        return (step, cyclingStep(sensor, step, ts: ts, received: received, points, clockTrusted: clockTrusted))
    }

    /// A cycling sensor's step: its cadence and wheel speed for the ride log, its wheel's distance (up to `ts`
    /// when the clock is trusted), and a point from the sensors while there is no position fix.
    private mutating func cyclingStep(_ sensor: SensorRef, _ step: CyclingSensorState.Step, ts: Timestamp, received: ReceiveTime,
                                      _ points: SensorPoints, clockTrusted: Bool) -> [RideLogEntry] {
        let now = received.monotonicSeconds
        if let cadence = step.cadence { recorder.cadence(cadence, at: now) }
        if let speed = step.speed { recorder.wheelSpeed(speed, at: now) }
        progress.countWheel(sensor, step, now: now, until: clockTrusted ? ts : nil)
        return sensorPoints(ts: ts, received: received, points)
    }

    /// Points from the sensors (once a second) while the receiver has no position: a tunnel, or indoors.
    private mutating func sensorPoints(ts: Timestamp, received: ReceiveTime, _ points: SensorPoints) -> [RideLogEntry] {
        guard !points.positionFix, !recordingOver else { return [] }
        return recorder.sensors(time: ts, distance: progress.summary.distanceMeters, received: received, hold: points.hold)
    }

    /// Points that waited for a date, dated now (`before`: the first fix they precede).
    mutating func releaseHeldPoints(before firstFix: Timestamp? = nil, dating date: (ReceiveTime) -> Timestamp) -> [RideLogEntry] {
        recorder.release(before: firstFix, dating: date)
    }

    mutating func manualLap(at ts: Timestamp) -> [RideLogEntry] {
        recorder.manualLap(time: ts, distance: progress.summary.distanceMeters)
    }

    /// The lap that ends at `time`; the next begins there.
    mutating func endLap(at time: Timestamp) -> RideProgress.LapSplit { progress.endLap(at: time) }

    /// Home ends the ride: true once a ride that has moved has stood (not moving) inside a zone marked home for
    /// `PrivacyZones.homeArrival` s of GPS time, so its files and uploads go while the house's Wi-Fi is there,
    /// not `new_ride_after_min` later. A café is not home: elsewhere a stop continues the ride.
    mutating func standsAtHome(_ fix: GPSFix, at ts: Timestamp) -> Bool {
        guard let latitude = fix.latitude, let longitude = fix.longitude, zones.isHome(latitude: latitude, longitude: longitude),
              !progress.summary.isMoving, progress.summary.distanceMeters > 0 else {
            standingAtHomeSince = nil
            return false
        }
        // The first fix standing there starts the count; GPS time that went back starts it again.
        guard let since = standingAtHomeSince, ts >= since else {
            standingAtHomeSince = ts
            return false
        }
        guard ts - since >= PrivacyZones.homeArrival else { return false }
        standingAtHomeSince = nil
        return true
    }

    /// The rider ended the ride: its end in the ride log, and its live totals start again.
    mutating func end(at ts: Timestamp) -> [RideLogEntry] {
        progress.startOver()
        return recorder.endRide(time: ts)
    }

    /// The demo's recording played to its end: the points still waiting (dated by `date`) and the ride's end in
    /// the ride log; nothing after it is recorded.
    mutating func endRecording(at ts: Timestamp, dating date: (ReceiveTime) -> Timestamp) -> [RideLogEntry] {
        recordingOver = true
        return recorder.release(dating: date) + recorder.endRide(time: ts)
    }
}
