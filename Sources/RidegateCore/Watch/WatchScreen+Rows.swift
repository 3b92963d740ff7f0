/// The rows of `ridegate watch`'s screen, one function each: what a payload says, or a dash.
extension WatchScreen {
    func brokerText(_ state: WatchState, connected: Bool) -> String {
        var broker = [connected ? "connected" : "not connected (retrying)"]
        if let health = state["health"] {
            let depth = health["spool_depth"]?.int ?? 0
            broker.append("\(depth) waiting in the spool" + (health["spool_mode"]?.string == "memory" ? " (in memory: disk full?)" : ""))
            if let connects = health["mqtt_connects"]?.int { broker.append("\(connects) connect\(connects == 1 ? "" : "s")") }
        }
        return broker.joined(separator: " · ")
    }

    func gpsText(_ state: WatchState) -> String {
        var gps: [String] = []
        if let state = state["gps/state"]?["state"]?.string { gps.append(Self.gpsState(state)) }
        if let fix = state["gps"] {
            if let sats = fix["sats"]?.int { gps.append("\(sats) satellites") }
            if let hdop = fix["hdop"]?.double { gps.append("HDOP " + JSONObjectWriter.number(hdop, decimals: 1)) }
        }
        return gps.isEmpty ? "-" : gps.joined(separator: " · ")
    }

    func speedText(_ state: WatchState) -> String {
        guard let fix = state["gps"], let speed = fix["speed_mps"]?.double else { return "-" }
        return units.speed(metresPerSecond: speed) + (fix["moving"]?.bool == false ? " (paused)" : "")
    }

    func rideText(_ state: WatchState) -> String {
        if let ride = state["ride"] {
            var parts = [units.distance(metres: ride["distance_m"]?.double ?? 0),
                         "moving " + DisplayUnits.duration(seconds: ride["moving_s"]?.double ?? 0)]
            if let average = ride["avg_speed_mps"]?.double { parts.append("avg " + units.speed(metresPerSecond: average)) }
            if let gain = ride["elevation_gain_m"]?.double { parts.append("+" + units.height(metres: gain)) }
            return parts.joined(separator: " · ")
        }
        return state["gps"]?["distance_m"]?.double.map { units.distance(metres: $0) } ?? "-"
    }

    func heartRateText(_ state: WatchState) -> String {
        guard let hr = state["heart_rate"], let bpm = hr["bpm"]?.int else { return "-" }
        var parts = ["\(bpm) bpm"]
        if let zone = hr["zone"]?.int { parts.append("zone \(zone)") }
        if hr["contact"]?.string == "not_detected" { parts.append("no skin contact") }
        return parts.joined(separator: " · ")
    }

    /// A Power row per power meter, a Cadence row per speed/cadence sensor.
    func sensorRows(_ state: WatchState) -> [(label: String, text: String)] {
        var rows: [(label: String, text: String)] = []
        for sensor in state.sensorTopics where sensor.hasPrefix("sensor/") {
            if let power = state[sensor + "/power"] {
                var parts = ["\(power["power_w"]?.int ?? 0) W"]
                if let three = power["power_3s_w"]?.int { parts.append("3 s \(three) W") }
                if let cadence = power["cadence_rpm"]?.int { parts.append("\(cadence) rpm") }
                if let zone = power["zone"]?.int { parts.append("zone \(zone)") }
                rows.append(("Power", parts.joined(separator: " · ")))
            }
            if let csc = state[sensor + "/speed_cadence"] {
                var parts: [String] = []
                if let speed = csc["wheel_speed_mps"]?.double { parts.append("wheel " + units.speed(metresPerSecond: speed)) }
                if let cadence = csc["cadence_rpm"]?.int { parts.append("\(cadence) rpm") }
                if !parts.isEmpty { rows.append(("Cadence", parts.joined(separator: " · "))) }
            }
        }
        return rows
    }

    func sunText(_ state: WatchState) -> String {
        guard let sun = state["sun"] else { return "-" }
        // The gateway's clock: the newest fix's time (sun's own `ts` before one).
        return sunLine(sun, now: state["gps"]?["ts"]?.string.flatMap(Timestamp.init(iso8601:))
            ?? sun["ts"]?.string.flatMap(Timestamp.init(iso8601:)))
    }

    func sensorsText(_ state: WatchState) -> String {
        let sensors = state.sensorTopics.compactMap { topic -> String? in
            guard let s = state[topic + "/state"]?["state"]?.string else { return nil }
            return "\(topic.split(separator: "/").last.map(String.init) ?? topic) \(s)"
        }
        return sensors.isEmpty ? "-" : sensors.joined(separator: " · ")
    }
}
