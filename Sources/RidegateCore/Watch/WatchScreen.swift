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
        let gateway = state.status ?? "unknown (no status yet)"
        var rows: [(label: String, text: String)] = [
            ("Gateway", connected ? gateway : "? (watch is not connected to the broker)"),
            ("Broker", brokerText(state, connected: connected)),
            ("GPS", gpsText(state)),
            ("Speed", speedText(state)),
            ("Ride", rideText(state)),
            ("Heart rate", heartRateText(state)),
        ]
        rows += sensorRows(state)
        rows.append(("Sun", sunText(state)))
        rows.append(("Sensors", sensorsText(state)))
        let last = "Last message: " + (state.latest.map { units.timeOfDay(secondsSinceMidnight: localTimeOfDay($0)) + " (" + $0.iso8601 + ")" } ?? "none yet")
            + (state.unreadable > 0 ? " · \(state.unreadable) unreadable" : "")
        return ["ridegate watch: \(deviceID) on \(broker)  (Ctrl-C to leave)", ""] + rows.map { $0.label.padding(to: 11) + $0.text } + ["", last]
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

    func sunLine(_ sun: JSONValue, now: Timestamp?) -> String {
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
