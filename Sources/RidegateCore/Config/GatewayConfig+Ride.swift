/// `[ride]` and `[sun]`: what the ride log keeps and exports, and the sun's warnings.
extension GatewayConfig {
    public struct Ride: Sendable, Equatable {
        public var autoPauseSpeed = 1.0
        public var summaryIntervalSeconds = 10.0
        /// A fix this long after the ride log's last point starts a new ride; sooner (a restart, a stop at a
        /// café) continues it.
        public var newRideAfterMinutes = 30.0
        /// Where each finished ride is written as files (a USB stick, a synced folder); nil: no automatic export.
        public var exportDirectory: String?
        public var exportFormats: [RideFileFormat] = [.fit]
        /// Limits on the ride log: rides older than this many days go (nil: kept); over this size the oldest
        /// rides go, exported ones first.
        public var keepDays: Double?
        public var maximumMegabytes = 1024.0
        /// A lap every this many kilometres (a head unit's auto-lap); nil: laps only from the lap button.
        public var autoLapKilometers: Double?
        /// The files (exported and uploaded) show no position inside a `[[privacy_zone]]` either.
        public var hidePrivacyZonesInFiles = false
    }

    public struct Sun: Sendable, Equatable {
        public var enabled = true
        public var warningLeadMinutes = 30.0
        public var moveThresholdKilometers = 25.0
        public var publishIntervalSeconds = 60.0
    }

    static func ride(_ table: ConfigTableReader) throws(ConfigError) -> Ride {
        var r = table
        var ride = Ride()
        ride.autoPauseSpeed = try r.number("auto_pause_speed_mps", default: ride.autoPauseSpeed, range: 0...10)
        ride.summaryIntervalSeconds = try r.number("summary_interval_s", default: ride.summaryIntervalSeconds, range: 1...3600)
        ride.newRideAfterMinutes = try r.number("new_ride_after_min", default: ride.newRideAfterMinutes, range: 1...1440)
        ride.exportDirectory = try r.optionalString("export_directory")
        if let directory = ride.exportDirectory, !directory.hasPrefix("/") {
            throw r.error("export_directory", r.table["export_directory"], "\"\(directory)\" must be an absolute path, e.g. \"/media/usb/rides\"")
        }
        var formats: [RideFileFormat] = []
        for name in try r.strings("export_formats", default: ride.exportFormats.map(\.rawValue)) {
            guard let format = RideFileFormat(rawValue: name) else {
                throw r.error("export_formats", r.table["export_formats"], "\"\(name)\" is not a ride file format; use one of \(RideFileFormat.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        ride.exportFormats = formats
        let keepDays = try r.number("keep_days", default: 0, range: 0...36_500)
        ride.keepDays = keepDays > 0 ? keepDays : nil
        ride.maximumMegabytes = try r.number("max_mb", default: ride.maximumMegabytes, range: 1...1_000_000)
        let autoLap = try r.number("auto_lap_km", default: 0, range: 0...1000)
        ride.autoLapKilometers = autoLap > 0 ? autoLap : nil
        ride.hidePrivacyZonesInFiles = try r.bool("hide_privacy_zones_in_files", default: ride.hidePrivacyZonesInFiles)
        try r.finish()
        return ride
    }

    static func sun(_ table: ConfigTableReader) throws(ConfigError) -> Sun {
        var s = table
        var sun = Sun()
        sun.enabled = try s.bool("enabled", default: sun.enabled)
        sun.warningLeadMinutes = try s.number("warning_lead_min", default: sun.warningLeadMinutes, range: 0...240)
        sun.moveThresholdKilometers = try s.number("move_threshold_km", default: sun.moveThresholdKilometers, range: 0.1...1000)
        sun.publishIntervalSeconds = try s.number("publish_interval_s", default: sun.publishIntervalSeconds, range: 10...3600)
        try s.finish()
        return sun
    }
}
