extension RideStatistics {
    /// The totals as the ride log keeps them for a finished ride (JSON, so a later release can add to it).
    public var stored: String {
        var json = JSONObjectWriter(capacity: 512)
        json.add("start", start.secondsSince1970, decimals: 3)
        json.add("end", end.secondsSince1970, decimals: 3)
        json.add("timer_s", timerSeconds, decimals: 3)
        json.add("distance_m", distanceMeters, decimals: 2)
        json.add("max_speed_mps", maximumSpeed, decimals: 3)
        json.add("avg_hr_bpm", averageHeartRate, decimals: 3)
        json.add("max_hr_bpm", maximumHeartRate)
        json.add("avg_cadence_rpm", averageCadence, decimals: 3)
        json.add("max_cadence_rpm", maximumCadence)
        json.add("avg_power_w", averagePower, decimals: 3)
        json.add("max_power_w", maximumPower)
        json.add("normalized_power_w", normalizedPower, decimals: 3)
        json.add("work_j", workJoules, decimals: 1)
        json.add("ascent_m", ascentMeters, decimals: 2)
        json.add("descent_m", descentMeters, decimals: 2)
        json.add("calories_kcal", calories, decimals: 2)
        if let zones = heartRateZoneSeconds { json.add("hr_zone_s", zones, decimals: 1) }
        if let zones = powerZoneSeconds { json.add("power_zone_s", zones, decimals: 1) }
        return json.finish()
    }

    /// Totals the ride log kept, or nil when the text is not theirs (damaged, or from another release).
    public init?(stored text: String) {
        guard let json = try? JSONValue(parsing: text), let start = json["start"]?.double, let end = json["end"]?.double else { return nil }
        self.init(start: Timestamp(secondsSince1970: start), end: Timestamp(secondsSince1970: end))
        timerSeconds = json["timer_s"]?.double ?? 0
        distanceMeters = json["distance_m"]?.double ?? 0
        maximumSpeed = json["max_speed_mps"]?.double
        averageHeartRate = json["avg_hr_bpm"]?.double
        maximumHeartRate = json["max_hr_bpm"]?.int
        averageCadence = json["avg_cadence_rpm"]?.double
        maximumCadence = json["max_cadence_rpm"]?.int
        averagePower = json["avg_power_w"]?.double
        maximumPower = json["max_power_w"]?.int
        normalizedPower = json["normalized_power_w"]?.double
        workJoules = json["work_j"]?.double
        ascentMeters = json["ascent_m"]?.double ?? 0
        descentMeters = json["descent_m"]?.double ?? 0
        calories = json["calories_kcal"]?.double
        heartRateZoneSeconds = json["hr_zone_s"]?.array?.compactMap(\.double)
        powerZoneSeconds = json["power_zone_s"]?.array?.compactMap(\.double)
    }
}
