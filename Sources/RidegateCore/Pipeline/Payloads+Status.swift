/// The payloads of the gateway's own state and its devices': `health`, a sensor's `info`, and `lap`.
extension Payloads {
    /// `health` (retained): uptime, GPS time's standing, reconnects, readings held back, device states, which
    /// configuration runs.
    static func health(ts: Timestamp, uptime: Double, time: TimeReference, status: GatewayStatus, coalesced: Int, lastGoodConfig: Bool) -> String {
        var json = JSONObjectWriter(capacity: 256)
        json.add("ts", ts.iso8601)
        json.add("uptime_s", uptime, decimals: 0)
        json.add("clock_trusted", time.isTrusted)
        json.add("clock_offset_s", time.systemClockOffset, decimals: 3)
        json.add("gps_time_rejected", time.rejectedEpochs)
        json.add("gps_time_steps", time.steps)
        json.add("strap_reconnects", status.losses(of: .strap))
        json.add("sensor_reconnects", status.losses(of: .sensor))
        json.add("coalesced", coalesced)
        json.add("gps_state", status.gps?.rawValue)
        json.add("state_storage", status.storage.rawValue)
        json.add("config", lastGoodConfig ? "last_good" : "file")
        return json.finish()
    }

    /// A sensor's retained `info`: its name, where it sits, battery, maker and what it measures.
    static func sensorInfo(_ sensor: SensorRef, _ details: SensorDetails, ts: Timestamp) -> String {
        var json = JSONObjectWriter(capacity: 160)
        json.add("ts", ts.iso8601)
        json.add("name", details.name)
        switch sensor.kind.family {
        case .strap: json.add("body_location", details.bodyLocation)
        case .sensor: json.add("location", details.sensorLocation)
        }
        json.add("battery_pct", details.batteryPercent)
        json.add("manufacturer", details.manufacturer)
        json.add("model", details.model)
        json.add("measures", json: "[" + details.measures.sorted().map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]")
        if sensor.kind.family == .sensor { json.add("wheel_mm", sensor.wheelMillimetres, decimals: 0) }
        return json.finish()
    }

    /// `lap`: the lap's number, what ended it, and its time, moving time and distance.
    static func lap(_ mark: LapMark, number: Int, split: RideProgress.LapSplit, rideDistance: Double, seq: Int, clockTrusted: Bool) -> String {
        var json = JSONObjectWriter(capacity: 200)
        json.add("ts", mark.time.iso8601)
        json.add("seq", seq)
        json.add("lap", number)
        json.add("trigger", mark.trigger.rawValue)
        json.add("lap_time_s", split.elapsedSeconds, decimals: 0)
        json.add("lap_moving_s", split.movingSeconds, decimals: 0)
        json.add("lap_distance_m", split.distanceMeters, decimals: 1)
        json.add("distance_m", rideDistance, decimals: 1)
        json.add("clock_trusted", clockTrusted)
        return json.finish()
    }
}
