/// The ride: its summary, its wheel, and the points the sensors make while there is no position.
extension GatewayCore {
    /// The `ride` summary now. Along the ride a reading like any other (spooled, replayed); the `final` one at
    /// the orderly stop is retained, so a subscriber that comes after the ride still gets its totals.
    public mutating func rideSummary(ts: Timestamp, final: Bool = false) -> Publication {
        let seq = nextSequence(Topic.ride.name)
        let totals = Payloads.RideTotals(ride: ride.summary, secondsInZone: heartRateZoneTime.seconds, power: ridePower,
                                         secondsInPowerZone: powerZoneTime?.seconds, wheelEstimate: wheel.calibration.estimateMillimetres,
                                         heartRate: heartRateTotals, elevation: elevation)
        return Publication(topic: .ride, payload: Payloads.ride(totals, final: final, ts: ts, seq: seq), retain: final, sequence: seq)
    }

    /// A cycling sensor's step: its cadence and wheel speed for the ride log, its wheel's distance, and a point
    /// from the sensors while there is no position fix.
    mutating func cycling(_ sensor: SensorRef, _ step: CyclingSensorState.Step, ts: Timestamp, received: ReceiveTime) -> [Effect] {
        let now = received.monotonicSeconds
        if let cadence = step.cadence { recorder.cadence(cadence, at: now) }
        if let speed = step.speed { recorder.wheelSpeed(speed, at: now) }
        countWheel(sensor, step, at: now, until: time.isTrusted ? ts : nil)
        return sensorPoints(ts: ts, received: received)
    }

    /// Points from the sensors (once a second) while the receiver has no position: a tunnel, or indoors. They
    /// need a time to stand on: GPS time (the clock trusted), or, with the GPS off, the system clock; with a GPS
    /// but no fix yet (a Pi may think it is 1970) they wait for the first fix to date them.
    mutating func sensorPoints(ts: Timestamp, received: ReceiveTime) -> [Effect] {
        guard gpsState != .ok else { return [] }
        let hold = !time.isTrusted && settings.gpsEnabled
        return logged(recorder.sensors(time: ts, distance: ride.summary.distanceMeters, received: received, hold: hold))
    }

    /// A wheel's revolutions: the ride's distance while there is no position fix, and the wheel's
    /// calibration against GPS while there is. One wheel counts: the first sensor that reported one.
    /// `until`: the GPS time the revolutions reach, when the clock is trusted (fixes read late that it covers then
    /// add no distance of their own).
    mutating func countWheel(_ sensor: SensorRef, _ step: CyclingSensorState.Step, at now: Double, until: Timestamp?) {
        guard step.wheelRevolutions > 0 else { return }
        let counted = wheel.count(sensor: sensor.id, revolutions: step.wheelRevolutions, seconds: step.wheelSeconds, at: now)
        guard counted.revolutions > 0 else { return }
        ride.addWheel(metres: counted.revolutions * sensor.wheelMillimetres / 1000, seconds: counted.seconds, until: until)
    }
}
