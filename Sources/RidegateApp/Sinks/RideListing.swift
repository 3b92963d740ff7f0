import RidegateCore
import RidegateLinux

/// A ride as `rides list --json` and the retained `rides/last` message give it: one JSON object, its totals
/// those of its files (`RideStatistics`), null where a total is unknown (no strap, no power meter, no FTP).
public enum RideListing {
    public static func object(_ ride: SQLiteRideStore.Ride, files: [String]? = nil, uploads: [UploadJob]? = nil) -> String {
        let s = ride.statistics
        var json = JSONObjectWriter(capacity: 640)
        json.add("id", Int(ride.id))
        json.add("name", ride.name)
        json.add("start", ride.start.iso8601)
        json.add("end", ride.end.iso8601)
        json.add("distance_m", s?.distanceMeters ?? ride.distanceMeters, decimals: 1)
        json.add("moving_time_s", s?.timerSeconds ?? ride.movingSeconds, decimals: 0)
        json.add("elapsed_time_s", ride.elapsedSeconds, decimals: 0)
        json.add("points", ride.points)
        json.add("exported", ride.exported)
        json.add("elevation_gain_m", s?.ascentMeters, decimals: 0)
        json.add("elevation_loss_m", s?.descentMeters, decimals: 0)
        json.add("avg_hr_bpm", s?.averageHeartRate, decimals: 0)
        json.add("max_hr_bpm", s?.maximumHeartRate)
        json.add("avg_power_w", s?.averagePower, decimals: 0)
        json.add("max_power_w", s?.maximumPower)
        json.add("normalized_power_w", s?.normalizedPower, decimals: 0)
        json.add("work_kj", s?.workJoules.map { $0 / 1000 }, decimals: 1)
        json.add("avg_cadence_rpm", s?.averageCadence, decimals: 0)
        json.add("avg_speed_mps", s?.averageSpeed, decimals: 2)
        json.add("max_speed_mps", s?.maximumSpeed, decimals: 2)
        json.add("calories_kcal", s?.calories, decimals: 0)
        if let zones = s?.heartRateZoneSeconds { json.add("hr_zone_s", zones, decimals: 0) } else { json.addNull("hr_zone_s") }
        if let zones = s?.powerZoneSeconds { json.add("power_zone_s", zones, decimals: 0) } else { json.addNull("power_zone_s") }
        json.add("laps", ride.laps)
        if let files { json.add("files", files) }
        if let uploads {
            json.add("upload", UploadJob.overallState(uploads))
            var sites = JSONObjectWriter()
            for job in uploads { sites.add(job.service.rawValue, json: job.jsonObject) }
            json.add("uploads", json: sites.finish())
        }
        return json.finish()
    }
}
