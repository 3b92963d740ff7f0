/// GPS fixes: judged against the time reference first (a fix with a wrong date counts for nothing), then the
/// ride, the ride log, `gps`, `position`, the ride summary and the sun.
extension GatewayCore {
    mutating func gpsFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        switch time.admit(fix, at: received) {
        case .accept(let epochs, let step):
            var effects: [Effect] = []
            if let step {
                effects.append(.log(LogRecord(.warning, "the GPS time moved and stayed there; following it", [
                    ("gps.step_s", String(Int(step.rounded()))), ("gps.time", fix.time?.iso8601 ?? "-"),
                    ("gps.time_steps", String(time.steps)),
                ])))
            }
            if time.isTrusted, recorder.hasHeldPoints {
                let reference = time
                effects += recorder.release(before: epochs.first?.fix.time) { reference.utc(for: $0) }.map { .record($0) }
            }
            for epoch in epochs { effects += timedFix(epoch.fix, at: epoch.received) }
            return effects
        case .wait:
            return []
        case .reject(let offBy):
            guard let count = timeRejections.occurred(at: received.monotonicSeconds) else { return [] }
            return [.log(LogRecord(.warning, "a GPS epoch's time is off the established GPS time; the epoch is ignored", [
                ("gps.time", fix.time?.iso8601 ?? "-"), ("gps.expected", time.utc(for: received).iso8601),
                ("gps.off_by_s", String(Int(offBy.rounded()))), ("gps.ignored", String(count)),
                ("gps.time_rejected", String(time.rejectedEpochs)),
            ]))]
        case .untimed:
            return untimedFix(fix, at: received)
        }
    }

    /// A fix without a position (or a date to trust): the receiver's state and its `gps` message, dated by the
    /// reference (a receiver without a fix reports its own unsynchronised clock).
    private mutating func untimedFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        let ts = time.isTrusted ? time.utc(for: received) : fix.time ?? received.system
        var effects: [Effect] = []
        if admit(Topic.gps.name, at: ts, interval: settings.gpsMinimumInterval) {
            let seq = nextSequence(Topic.gps.name)
            effects.append(.publish(Publication(topic: .gps, payload: Payloads.gps(fix, ride: ride.summary, ts: ts, seq: seq), sequence: seq)))
        }
        return effects + gpsStateEffects(fix.hasPosition ? .ok : .noFix, ts: ts)
    }

    /// A fix with a position whose time the reference accepted.
    private mutating func timedFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        guard let ts = fix.time, let latitude = fix.latitude, let longitude = fix.longitude else { return [] }
        var effects: [Effect] = []
        if settings.clockSamples, let sample = clockSample(fix, at: received) { effects.append(.clockSample(sample)) }
        ride.add(fix)
        elevation.add(altitude: fix.altitudeMSL, hdop: fix.hdop, at: ts)
        wheel.add(fix, at: received.monotonicSeconds)
        effects += logged(recorder.fix(fix, time: ts, distance: ride.summary.distanceMeters, moving: ride.summary.isMoving,
                                       now: received.monotonicSeconds))
        if admit(Topic.gps.name, at: ts, interval: settings.gpsMinimumInterval) {
            let seq = nextSequence(Topic.gps.name)
            effects.append(.publish(Publication(topic: .gps, payload: Payloads.gps(fix, ride: ride.summary, ts: ts, seq: seq), sequence: seq)))
        }
        effects += gpsStateEffects(.ok, ts: ts)
        if lastPosition.map({ ts - $0 >= settings.positionInterval || ts < $0 }) ?? true {
            lastPosition = ts
            effects.append(.publish(Publication(topic: .position, payload: Payloads.position(
                latitude: latitude, longitude: longitude, hdop: fix.hdop, ts: ts), retain: true)))
        }
        if lastRideSummary.map({ ts - $0 >= settings.rideSummaryInterval }) ?? true {
            lastRideSummary = ts
            effects.append(.publish(rideSummary(ts: ts)))
        }
        return effects + sunEffects(latitude: latitude, longitude: longitude, now: ts)
    }
}
