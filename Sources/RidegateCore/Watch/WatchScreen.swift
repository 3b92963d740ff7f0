/// The lines `ridegate watch` draws, from what it knows: pure, so what a rider sees is tested without a
/// terminal. Every value comes from a payload; a dash means nothing has said it yet.
public struct WatchScreen: Sendable {
    public var units: DisplayUnits
    /// The device id and the broker, for the title.
    public var deviceID: String
    public var broker: String
    /// Local seconds since midnight for a timestamp (the C library's zone), for sunset and the like.
    public var localTimeOfDay: @Sendable (Timestamp) -> Double

    public init(units: DisplayUnits, deviceID: String, broker: String, localTimeOfDay: @escaping @Sendable (Timestamp) -> Double) {
        self.units = units
        self.deviceID = deviceID
        self.broker = broker
        self.localTimeOfDay = localTimeOfDay
    }

    /// The screen; `connected` is watch's own connection to the broker.
    public func lines(_ state: WatchState, connected: Bool) -> [String] {
        var lines = ["ridegate watch: \(deviceID) on \(broker)  (Ctrl-C to leave)", ""]
        func row(_ label: String, _ text: String) { lines.append(label.padding(to: 11) + text) }

        let gateway = state.status ?? "unknown (no status yet)"
        row("Gateway", connected ? gateway : "? (watch is not connected to the broker)")
        var broker = [connected ? "connected" : "not connected (retrying)"]
        if let health = state["health"] {
            let depth = health["spool_depth"]?.int ?? 0
            broker.append("\(depth) waiting in the spool" + (health["spool_mode"]?.string == "memory" ? " (in memory: disk full?)" : ""))
            if let connects = health["mqtt_connects"]?.int { broker.append("\(connects) connect\(connects == 1 ? "" : "s")") }
        }
        row("Broker", broker.joined(separator: " · "))

        var gps: [String] = []
        if let state = state["gps/state"]?["state"]?.string { gps.append(Self.gpsState(state)) }
        if let fix = state["gps"] {
            if let sats = fix["sats"]?.int { gps.append("\(sats) satellites") }
            if let hdop = fix["hdop"]?.double { gps.append("HDOP " + JSONObjectWriter.number(hdop, decimals: 1)) }
        }
        row("GPS", gps.isEmpty ? "-" : gps.joined(separator: " · "))
        if let fix = state["gps"], let speed = fix["speed_mps"]?.double {
            row("Speed", units.speed(metresPerSecond: speed) + (fix["moving"]?.bool == false ? " (paused)" : ""))
        } else {
            row("Speed", "-")
        }
        if let ride = state["ride"] {
            var parts = [units.distance(metres: ride["distance_m"]?.double ?? 0),
                         "moving " + DisplayUnits.duration(seconds: ride["moving_s"]?.double ?? 0)]
            if let average = ride["avg_speed_mps"]?.double { parts.append("avg " + units.speed(metresPerSecond: average)) }
            if let gain = ride["elevation_gain_m"]?.double { parts.append("+" + units.height(metres: gain)) }
            row("Ride", parts.joined(separator: " · "))
        } else if let distance = state["gps"]?["distance_m"]?.double {
            row("Ride", units.distance(metres: distance))
        } else {
            row("Ride", "-")
        }

        if let hr = state["heart_rate"], let bpm = hr["bpm"]?.int {
            var parts = ["\(bpm) bpm"]
            if let zone = hr["zone"]?.int { parts.append("zone \(zone)") }
            if hr["contact"]?.string == "not_detected" { parts.append("no skin contact") }
            row("Heart rate", parts.joined(separator: " · "))
        } else {
            row("Heart rate", "-")
        }
        for sensor in state.sensorTopics where sensor.hasPrefix("sensor/") {
            if let power = state[sensor + "/power"] {
                var parts = ["\(power["power_w"]?.int ?? 0) W"]
                if let three = power["power_3s_w"]?.int { parts.append("3 s \(three) W") }
                if let cadence = power["cadence_rpm"]?.int { parts.append("\(cadence) rpm") }
                if let zone = power["zone"]?.int { parts.append("zone \(zone)") }
                row("Power", parts.joined(separator: " · "))
            }
            if let csc = state[sensor + "/speed_cadence"] {
                var parts: [String] = []
                if let speed = csc["wheel_speed_mps"]?.double { parts.append("wheel " + units.speed(metresPerSecond: speed)) }
                if let cadence = csc["cadence_rpm"]?.int { parts.append("\(cadence) rpm") }
                if !parts.isEmpty { row("Cadence", parts.joined(separator: " · ")) }
            }
        }

        if let sun = state["sun"] {
            // The gateway's clock: the newest fix's time (sun's own `ts` before one).
            row("Sun", sunLine(sun, now: state["gps"]?["ts"]?.string.flatMap(Timestamp.init(iso8601:))
                ?? sun["ts"]?.string.flatMap(Timestamp.init(iso8601:))))
        } else {
            row("Sun", "-")
        }
        let sensors = state.sensorTopics.compactMap { topic -> String? in
            guard let s = state[topic + "/state"]?["state"]?.string else { return nil }
            return "\(topic.split(separator: "/").last.map(String.init) ?? topic) \(s)"
        }
        row("Sensors", sensors.isEmpty ? "-" : sensors.joined(separator: " · "))
        lines.append("")
        lines.append("Last message: " + (state.latest.map { units.timeOfDay(secondsSinceMidnight: localTimeOfDay($0)) + " (" + $0.iso8601 + ")" } ?? "none yet")
            + (state.unreadable > 0 ? " · \(state.unreadable) unreadable" : ""))
        return lines
    }

    /// One line for a ride in progress (the demo prints it every few seconds): moving time, distance,
    /// speed, heart rate and zone, power.
    public func compactLine(_ state: WatchState) -> String {
        var parts: [String] = []
        if let ride = state["ride"] {
            parts.append(DisplayUnits.duration(seconds: ride["moving_s"]?.double ?? 0))
            parts.append(units.distance(metres: ride["distance_m"]?.double ?? 0))
        }
        if let speed = state["gps"]?["speed_mps"]?.double { parts.append(units.speed(metresPerSecond: speed)) }
        if let bpm = state["heart_rate"]?["bpm"]?.int {
            parts.append("\(bpm) bpm" + (state["heart_rate"]?["zone"]?.int.map { " zone \($0)" } ?? ""))
        }
        for sensor in state.sensorTopics where sensor.hasPrefix("sensor/") {
            if let watts = state[sensor + "/power"]?["power_3s_w"]?.int { parts.append("\(watts) W") }
        }
        return parts.isEmpty ? "waiting for the first fix" : parts.joined(separator: " · ")
    }

    private func sunLine(_ sun: JSONValue, now: Timestamp?) -> String {
        guard let sunset = sun["sunset"]?.string.flatMap(Timestamp.init(iso8601:)) else {
            return sun["status"]?.string.map { "no sunset today (\($0.replacingUnderscores))" } ?? "-"
        }
        var text = "sunset " + units.timeOfDay(secondsSinceMidnight: localTimeOfDay(sunset))
        if let now {
            let left = sunset - now
            text += left > 0 ? " · in " + DisplayUnits.duration(seconds: left) : " · passed"
        }
        if sun["sunset_warning"]?.bool == true { text += " · lights on" }
        return text
    }

    static func gpsState(_ state: String) -> String {
        switch state {
        case "ok": "fix"
        case "no_fix": "no fix yet"
        case "no_device": "no receiver (unplugged?)"
        case "no_data": "no data (baud rate? TX/RX?)"
        default: state.replacingUnderscores
        }
    }
}

private extension String {
    func padding(to width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
