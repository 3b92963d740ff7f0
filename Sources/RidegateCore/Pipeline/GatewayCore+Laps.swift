/// Laps and the ride's end on the rider's say: the lap button (short: a lap; long: the ride ends now) and
/// auto-lap, each kept in the ride log, announced on `lap` and acknowledged on the LED.
extension GatewayCore {
    /// How long the LED shows the button was heard.
    static let acknowledgeSeconds = 1.0

    mutating func lapButton(_ press: ButtonPresses.Press, at receive: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: receive)
        acknowledgeUntil = receive.monotonicSeconds + Self.acknowledgeSeconds
        switch press {
        case .short: return logged(recorder.manualLap(time: ts, distance: ride.summary.distanceMeters))
        case .long: return endRide(at: ts)
        }
    }

    /// The ride log's entries as effects, each lap among them also announced.
    mutating func logged(_ entries: [RideLogEntry]) -> [Effect] {
        var effects: [Effect] = []
        for entry in entries {
            effects.append(.record(entry))
            if case .lap(let mark) = entry { effects.append(.publish(lapAnnouncement(mark))) }
        }
        return effects
    }

    /// `lap`: the lap's number, what ended it, and its time, moving time and distance.
    mutating func lapAnnouncement(_ mark: LapMark) -> Publication {
        let seq = nextSequence(Topic.lap.name)
        let summary = ride.summary
        var json = JSONObjectWriter(capacity: 200)
        json.add("ts", mark.time.iso8601)
        json.add("seq", seq)
        json.add("lap", recorder.laps)
        json.add("trigger", mark.trigger.rawValue)
        json.add("lap_time_s", lapStart.time.map { mark.time - $0 } ?? summary.elapsedSeconds, decimals: 0)
        json.add("lap_moving_s", summary.movingSeconds - lapStart.moving, decimals: 0)
        json.add("lap_distance_m", summary.distanceMeters - lapStart.distance, decimals: 1)
        json.add("distance_m", summary.distanceMeters, decimals: 1)
        json.add("clock_trusted", time.isTrusted)
        lapStart = (mark.time, summary.distanceMeters, summary.movingSeconds)
        return Publication(topic: .lap, payload: json.finish(), sequence: seq)
    }

    /// The rider ended the ride: its final summary (retained), its end in the ride log, and the live totals
    /// start again for the next one.
    mutating func endRide(at ts: Timestamp) -> [Effect] {
        var effects: [Effect] = [.publish(rideSummary(ts: ts, final: true))]
        effects += recorder.endRide(time: ts).map { .record($0) }
        ride = RideTracker(autoPauseSpeed: settings.autoPauseSpeed)
        ridePower = RidePowerTotals()
        elevation = ElevationTotals()
        heartRateTotals = HeartRateTotals()
        heartRateZoneTime = ZoneTime(zones: settings.zones)
        powerZoneTime = settings.powerZones.map { ZoneTime(zones: $0) }
        lapStart = (nil, 0, 0)
        return effects
    }
}
