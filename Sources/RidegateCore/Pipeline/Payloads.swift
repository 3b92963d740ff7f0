/// JSON payloads, one function per topic. Field names carry their units (`speed_mps`, `rr_ms`); every
/// field is always present (null when unknown), so a subscriber never guesses. Documented in docs/mqtt.md.
public enum Payloads {
    public static func heartRate(_ m: HeartRateMeasurement, strap: String, zone: Int?, ts: Timestamp,
                                 seq: Int, clockTrusted: Bool) -> String {
        var json = JSONObjectWriter()
        json.add("ts", ts.iso8601)
        json.add("seq", seq)
        json.add("strap", strap)
        json.add("bpm", m.beatsPerMinute)
        json.add("zone", zone)
        json.add("contact", m.sensorContact.rawValue)
        json.add("rr_ms", m.rrIntervalsMilliseconds, decimals: 1)
        json.add("energy_kj", m.energyExpendedKilojoules)
        json.add("clock_trusted", clockTrusted)
        return json.finish()
    }

    /// `positionHidden`: the fix is inside a privacy zone, so its coordinates and altitude are null.
    public static func gps(_ fix: GPSFix, ride: RideTracker.Summary, positionHidden: Bool, ts: Timestamp, seq: Int) -> String {
        var json = JSONObjectWriter()
        json.add("ts", ts.iso8601)
        json.add("seq", seq)
        json.add("mode", fix.mode.name)
        json.add("lat", positionHidden ? nil : fix.latitude, decimals: 7)
        json.add("lon", positionHidden ? nil : fix.longitude, decimals: 7)
        json.add("alt_m", positionHidden ? nil : fix.altitudeMSL, decimals: 1)
        json.add("position_hidden", positionHidden)
        json.add("speed_mps", ride.speedMetersPerSecond ?? fix.speedMetersPerSecond, decimals: 2)
        json.add("track_deg", fix.trackDegrees, decimals: 1)
        json.add("sats", fix.satellitesUsed)
        json.add("hdop", fix.hdop, decimals: 2)
        json.add("distance_m", ride.distanceMeters, decimals: 1)
        json.add("moving", ride.isMoving)
        return json.finish()
    }

    /// Where the bike is, in the attribute names Home Assistant's device tracker reads; only ever sent with a
    /// position. `gps_accuracy` is an estimate, 5 m × HDOP (5 m when the receiver gives no HDOP).
    public static func position(latitude: Double, longitude: Double, hdop: Double?, ts: Timestamp) -> String {
        var json = JSONObjectWriter(capacity: 96)
        json.add("ts", ts.iso8601)
        json.add("latitude", latitude, decimals: 7)
        json.add("longitude", longitude, decimals: 7)
        json.add("gps_accuracy", 5 * (hdop ?? 1), decimals: 1)
        return json.finish()
    }

    public static func power(_ m: CyclingPowerMeasurement, averages: (threeSeconds: Double?, tenSeconds: Double?), zone: Int?,
                             cadence: Double?, wheelSpeed: Double?, ts: Timestamp, seq: Int, clockTrusted: Bool) -> String {
        var json = JSONObjectWriter()
        json.add("ts", ts.iso8601)
        json.add("seq", seq)
        json.add("power_w", m.powerWatts)
        json.add("power_3s_w", averages.threeSeconds, decimals: 0)
        json.add("power_10s_w", averages.tenSeconds, decimals: 0)
        json.add("zone", zone)
        json.add("cadence_rpm", cadence, decimals: 1)
        json.add("wheel_speed_mps", wheelSpeed, decimals: 2)
        json.add("balance_pct", m.pedalPowerBalancePercent, decimals: 1)
        json.add("clock_trusted", clockTrusted)
        return json.finish()
    }

    public static func speedCadence(cadence: Double?, wheelSpeed: Double?, ts: Timestamp, seq: Int, clockTrusted: Bool) -> String {
        var json = JSONObjectWriter(capacity: 128)
        json.add("ts", ts.iso8601)
        json.add("seq", seq)
        json.add("cadence_rpm", cadence, decimals: 1)
        json.add("wheel_speed_mps", wheelSpeed, decimals: 2)
        json.add("clock_trusted", clockTrusted)
        return json.finish()
    }

    /// A kind the core has no model of: the values its profile names, in its order, as they came.
    public static func sensorReading(_ values: [String: Double], kind: SensorProfile, ts: Timestamp, seq: Int, clockTrusted: Bool) -> String {
        var json = JSONObjectWriter(capacity: 96 + 24 * kind.readings.count)
        json.add("ts", ts.iso8601)
        json.add("seq", seq)
        for reading in kind.readings { json.add(reading.key, values[reading.key].flatMap { $0.isFinite ? $0 : nil }, decimals: reading.precision) }
        json.add("clock_trusted", clockTrusted)
        return json.finish()
    }

    /// What a `ride` summary reports: the tracker's totals and the per-sensor totals beside them.
    public struct RideTotals: Sendable {
        public var ride: RideTracker.Summary
        public var secondsInZone: [Double]
        public var power = RidePowerTotals()
        public var secondsInPowerZone: [Double]?
        public var wheelEstimate: Double?
        public var heartRate = HeartRateTotals()
        public var elevation = ElevationTotals()

        public init(ride: RideTracker.Summary, secondsInZone: [Double], power: RidePowerTotals = RidePowerTotals(),
                    secondsInPowerZone: [Double]? = nil, wheelEstimate: Double? = nil, heartRate: HeartRateTotals = HeartRateTotals(),
                    elevation: ElevationTotals = ElevationTotals()) {
            self.ride = ride
            self.secondsInZone = secondsInZone
            self.power = power
            self.secondsInPowerZone = secondsInPowerZone
            self.wheelEstimate = wheelEstimate
            self.heartRate = heartRate
            self.elevation = elevation
        }
    }

    public static func ride(_ totals: RideTotals, final: Bool = false, ts: Timestamp, seq: Int) -> String {
        let ride = totals.ride
        let power = totals.power
        var json = JSONObjectWriter()
        json.add("ts", ts.iso8601)
        json.add("seq", seq)
        json.add("final", final)
        json.add("distance_m", ride.distanceMeters, decimals: 1)
        json.add("moving_s", ride.movingSeconds, decimals: 0)
        json.add("elapsed_s", ride.elapsedSeconds, decimals: 0)
        json.add("avg_speed_mps", ride.averageMovingSpeedMetersPerSecond, decimals: 2)
        json.add("max_speed_mps", ride.maxSpeedMetersPerSecond, decimals: 2)
        json.add("zone_s", totals.secondsInZone, decimals: 0)
        // From the strap; null without one.
        json.add("avg_hr_bpm", totals.heartRate.average, decimals: 0)
        json.add("max_hr_bpm", totals.heartRate.maximum)
        // From GPS altitude, smoothed (ElevationTotals).
        json.add("elevation_gain_m", totals.elevation.gainMeters, decimals: 0)
        json.add("elevation_loss_m", totals.elevation.lossMeters, decimals: 0)
        // From a power meter; null without one.
        let rode = power.seconds > 0
        json.add("avg_power_w", power.averageWatts, decimals: 0)
        json.add("max_power_w", rode ? power.maximumWatts : nil)
        json.add("np_w", power.normalizedWatts, decimals: 0)
        json.add("work_kj", rode ? power.workKilojoules : nil, decimals: 1)
        json.add("avg_cadence_rpm", power.averagePedallingCadenceRPM, decimals: 0)
        json.add("avg_cadence_with_zeros_rpm", power.averageCadenceRPM, decimals: 0)
        // Only with an FTP configured.
        if let secondsInPowerZone = totals.secondsInPowerZone { json.add("power_zone_s", secondsInPowerZone, decimals: 0) }
        // From a wheel sensor: what it measured without a fix, and its circumference as GPS measures it.
        json.add("wheel_distance_m", ride.wheelDistanceMeters, decimals: 1)
        json.add("wheel_mm_estimate", totals.wheelEstimate, decimals: 0)
        return json.finish()
    }

    public static func deviceState(_ state: String, ts: Timestamp, extra: [(String, String)] = [], reconnects: Int? = nil) -> String {
        var json = JSONObjectWriter(capacity: 64)
        json.add("ts", ts.iso8601)
        json.add("state", state)
        if let reconnects { json.add("reconnects", reconnects) }
        for (key, value) in extra { json.add(key, value) }
        return json.finish()
    }
}
