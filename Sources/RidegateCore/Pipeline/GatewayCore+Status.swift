/// Device and gateway status: health, each sensor's and the GPS's state, clock samples for chrony.
extension GatewayCore {
    /// `health` once a minute, carried by whatever event comes next (no timer of its own).
    mutating func healthEffects(at receive: ReceiveTime, force: Bool = false) -> [Effect] {
        let now = receive.monotonicSeconds
        if startedAt == nil { startedAt = now }
        if !force, let last = lastHealth, now - last < healthInterval { return [] }
        lastHealth = now
        var json = JSONObjectWriter(capacity: 256)
        json.add("ts", time.utc(for: receive).iso8601)
        json.add("uptime_s", now - (startedAt ?? now), decimals: 0)
        json.add("clock_trusted", time.isTrusted)
        json.add("clock_offset_s", time.systemClockOffset, decimals: 3)
        json.add("gps_time_rejected", time.rejectedEpochs)
        json.add("gps_time_steps", time.steps)
        json.add("strap_reconnects", sensorLosses.filter { $0.key.kind == .heartRate }.values.reduce(0, +))
        json.add("sensor_reconnects", sensorLosses.filter { $0.key.kind != .heartRate }.values.reduce(0, +))
        json.add("coalesced", coalesced.values.reduce(0, +))
        json.add("gps_state", gpsState?.rawValue)
        json.add("state_storage", stateStorage.rawValue)
        json.add("config", settings.runsLastGoodConfig ? "last_good" : "file")
        return [.publish(Publication(topic: .health, payload: json.finish(), retain: true))]
    }

    mutating func sensorStateEffects(_ sensor: SensorRef, _ state: SensorState, reason: String?, ts: Timestamp) -> [Effect] {
        guard sensorStates[sensor] != state else { return [] }
        if state == .lost { sensorLosses[sensor, default: 0] += 1 }
        if let reason { sensorLastReason[sensor] = reason }
        sensorStates[sensor] = state
        var extra: [(String, String)] = []
        if let last = sensorLastReason[sensor] { extra.append(("last_reason", last)) }
        let payload = Payloads.deviceState(state.rawValue, ts: ts, extra: extra, reconnects: sensorLosses[sensor] ?? 0)
        return [.publish(Publication(topic: .sensor(sensor, .state), payload: payload, retain: true))]
    }

    /// A change of the state directory's file system shows on `health` at once (and on the LED).
    mutating func stateStorageEffects(_ storage: StateStorage, at receive: ReceiveTime) -> [Effect] {
        guard stateStorage != storage else { return [] }
        stateStorage = storage
        return healthEffects(at: receive, force: true)
    }

    mutating func gpsStateEffects(_ state: GPSDeviceState, ts: Timestamp) -> [Effect] {
        guard gpsState != state else { return [] }
        gpsState = state
        return [.publish(Publication(topic: .gpsState, payload: Payloads.deviceState(state.rawValue, ts: ts), retain: true))]
    }

    /// The system clock against a fix's time: fixes with a position and a sane date only (before a fix,
    /// receivers send their own unsynchronised clock), one per GPS second (the second's first fix: at 10 Hz
    /// the others say nothing new about the clock).
    mutating func clockSample(_ fix: GPSFix, at receive: ReceiveTime) -> ClockSample? {
        guard fix.hasPosition, let gpsTime = fix.time, gpsTime.date.year >= 2020 else { return nil }
        let second = gpsTime.secondsSince1970.rounded(.down)
        if let last = lastClockSecond, second == last { return nil }
        lastClockSecond = second
        return ClockSample(systemTime: receive.system, offset: gpsTime - receive.system)
    }
}
