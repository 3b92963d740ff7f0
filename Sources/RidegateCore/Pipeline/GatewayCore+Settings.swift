/// What the core is told at start: zones, intervals, rate limits and the features configured
/// (`GatewayAssembly.makeSettings` fills it from the configuration).
extension GatewayCore {
    public struct Settings: Sendable {
        public var zones: ZoneBoundaries
        public var zoneMarginBPM: Int
        public var zoneDwellSeconds: Double
        public var autoPauseSpeed: Double
        /// Ride-time seconds between `ride` summaries.
        public var rideSummaryInterval: Double
        public var heartRateEnabled: Bool
        public var sunEnabled: Bool
        public var sunsetWarningLead: Double
        public var sunMoveThresholdMeters: Double
        public var sunPublishInterval: Double
        /// Minimum seconds between `heart_rate` / `gps` messages (0: every reading). Readings in between
        /// are coalesced: the next one published is the newest, and the count is kept.
        public var heartRateMinimumInterval: Double = 0
        public var gpsMinimumInterval: Double = 0
        /// Home Assistant discovery, when enabled.
        public var homeAssistant: HomeAssistantDiscovery?
        /// Power zones (watts), when an FTP is configured; and what the LED shows zones of.
        public var powerZones: ZoneBoundaries?
        public var powerZoneMarginWatts = 20
        public var powerZoneDwellSeconds = 0.5
        public var ledZones: ZoneSource = .heartRate
        /// Seconds without a position fix after which a wheel sensor's distance counts for the ride.
        public var wheelFallbackAfter: Double = 3
        /// The MQTT QoS readings go out with (`mqtt.qos`): 1 (the default) and 2 are spooled until the broker
        /// has them; 0 is sent once, unspooled. Retained state goes out at QoS 1 whatever this says.
        public var readingQoS = 1
        /// Whether a GPS is configured (without one, the sensors' points stand on the system clock).
        public var gpsEnabled = true
        /// A lap every this many metres (`ride.auto_lap_km`), or none.
        public var autoLapMeters: Double?
        /// Seconds of GPS time between `position` messages (the device tracker's; its every change is a
        /// row in Home Assistant's database).
        public var positionInterval: Double = 5
        /// Send the system clock's offset from GPS time to a time daemon (`gps.chrony_socket`).
        public var clockSamples = false
        /// The configuration file was refused and the last good copy runs (`run --last-good`): said on the LED
        /// and on `health` (`config`).
        public var runsLastGoodConfig = false
        /// How far (seconds) a fix's time may stray from the established GPS time before it is rejected.
        public var gpsTimeTolerance = 2.0
        /// Where no position is published live (`[[privacy_zone]]`).
        public var privacyZones = PrivacyZones()
        /// OwnTracks' location messages (`[owntracks]`), when configured.
        public var ownTracks: OwnTracksSettings?
        /// Monotonic seconds between `health` messages.
        public var healthInterval: Double = 60

        public init(zones: ZoneBoundaries, zoneMarginBPM: Int = 2, zoneDwellSeconds: Double = 3,
                    autoPauseSpeed: Double = 1.0, rideSummaryInterval: Double = 10, heartRateEnabled: Bool = true,
                    sunEnabled: Bool = true, sunsetWarningLead: Double = 1800, sunMoveThresholdMeters: Double = 25_000,
                    sunPublishInterval: Double = 60) {
            self.sunEnabled = sunEnabled
            self.sunsetWarningLead = sunsetWarningLead
            self.sunMoveThresholdMeters = sunMoveThresholdMeters
            self.sunPublishInterval = sunPublishInterval
            self.zones = zones
            self.zoneMarginBPM = zoneMarginBPM
            self.zoneDwellSeconds = zoneDwellSeconds
            self.autoPauseSpeed = autoPauseSpeed
            self.rideSummaryInterval = rideSummaryInterval
            self.heartRateEnabled = heartRateEnabled
        }
    }
}
