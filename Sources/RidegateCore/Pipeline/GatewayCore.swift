/// The pure heart of the gateway: events in, effects out. It owns the derived state (time reference,
/// zone, ride totals, sequence numbers) and reads no clock: every time comes with its event.
public struct GatewayCore: Sendable {
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

    public let settings: Settings
    public internal(set) var time = TimeReference()
    public internal(set) var ride: RideTracker
    public internal(set) var zone: ZoneTracker
    var sequence: [String: Int] = [:]
    var lastRideSummary: Timestamp?
    var ledSignal: LEDSignal = .off
    var sensorStates: [SensorRef: SensorState] = [:]
    var sensorLosses: [SensorRef: Int] = [:]
    var sensorLastReason: [SensorRef: String] = [:]
    var contact: HeartRateMeasurement.SensorContact = .notSupported
    var gpsState: GPSDeviceState?
    var stateStorage = StateStorage.writable
    var sun: (date: CivilDate, latitude: Double, longitude: Double, published: Timestamp)?
    var remembered: (latitude: Double, longitude: Double)?
    public internal(set) var sunsetWarning = false
    var lastSent: [String: Timestamp] = [:]
    var lastPosition: Timestamp?
    /// The GPS second of the last clock sample.
    var lastClockSecond: Double?
    var cyclingSensors: [String: CyclingSensorState] = [:]
    public internal(set) var ridePower = RidePowerTotals()
    public internal(set) var elevation = ElevationTotals()
    public internal(set) var heartRateTotals = HeartRateTotals()
    public internal(set) var powerZone: ZoneTracker?
    /// Time in each zone, from the readings themselves (GPS time).
    public internal(set) var heartRateZoneTime: ZoneTime
    public internal(set) var powerZoneTime: ZoneTime?
    /// What each sensor was announced to Home Assistant with (announced again when it measures more); at start,
    /// what an earlier run announced.
    var announcedSensors: [SensorRef: AnnouncedSensor] = [:]
    var wheel: WheelDistance
    /// The newest sensor values and when they came (monotonic seconds), for the ride log's points.
    /// What the ride log keeps: points from fixes and, without a position, from the sensors; laps; sensors.
    public internal(set) var recorder: RideRecorder
    /// Where the current lap began (for its announcement).
    var lapStart: (time: Timestamp?, distance: Double, moving: Double) = (nil, 0, 0)
    /// The LED acknowledges the lap button until then (monotonic seconds).
    var acknowledgeUntil: Double?
    var startedAt: Double?
    var lastHealth: Double?
    /// Monotonic seconds between `health` messages.
    public var healthInterval: Double = 60
    /// Readings held back by the rate limits, per topic.
    public internal(set) var coalesced: [String: Int] = [:]
    /// GPS epochs rejected for their time, for the log (said once a minute at most, counted).
    var timeRejections = RepeatedProblem(interval: 60)

    public init(settings: Settings) {
        self.settings = settings
        time = TimeReference(tolerance: settings.gpsTimeTolerance)
        ride = RideTracker(autoPauseSpeed: settings.autoPauseSpeed)
        zone = ZoneTracker(zones: settings.zones, margin: settings.zoneMarginBPM, dwellSeconds: settings.zoneDwellSeconds)
        wheel = WheelDistance(fallbackAfter: settings.wheelFallbackAfter)
        recorder = RideRecorder(motion: MotionRule(autoPauseSpeed: settings.autoPauseSpeed), autoLapMeters: settings.autoLapMeters,
                                sensorPointsAfter: settings.wheelFallbackAfter)
        powerZone = settings.powerZones.map {
            ZoneTracker(zones: $0, margin: settings.powerZoneMarginWatts, dwellSeconds: settings.powerZoneDwellSeconds, target: .latest)
        }
        heartRateZoneTime = ZoneTime(zones: settings.zones)
        powerZoneTime = settings.powerZones.map { ZoneTime(zones: $0) }
        for sensor in settings.homeAssistant?.rememberedSensors ?? [] { announcedSensors[sensor.sensor] = sensor }
    }

    /// The next sequence number for a topic (per topic, starting at 1).
    mutating func nextSequence(_ topic: String) -> Int {
        let next = (sequence[topic] ?? 0) + 1
        sequence[topic] = next
        return next
    }

    /// Restores sequence counters (persisted across restarts by the MQTT sink's store).
    public mutating func restoreSequences(_ values: [String: Int]) {
        for (topic, value) in values { sequence[topic] = max(sequence[topic] ?? 0, value) }
    }

    public var sequences: [String: Int] { sequence }

    public mutating func handle(_ event: SourceEvent) -> [Effect] {
        var effects = healthEffects(at: event.receiveTime)
        switch event {
        case .heartRate(let strap, let measurement, let at):
            effects += heartRate(strap: strap, measurement, at: at)
        case .sensorReading(let sensor, let values, let at):
            effects += sensorReading(sensor, values, at: at)
        case .heartRateUndecodable, .cyclingUndecodable, .sensorUndecodable:
            break // logged by the source; nothing trustworthy to publish
        case .cyclingPower(let sensor, let measurement, let at):
            effects += power(sensor, measurement, at: at)
        case .cyclingSpeedCadence(let sensor, let measurement, let at):
            effects += speedCadence(sensor, measurement, at: at)
        case .sensorState(let sensor, let state, let reason, let at):
            effects += sensorStateEffects(sensor, state, reason: reason, ts: time.utc(for: at))
        case .sensorDetails(let sensor, let details, let at):
            effects += sensorDetails(sensor, details, at: at)
        case .gpsFix(let fix, let at):
            effects += gpsFix(fix, at: at)
        case .gpsState(let state, let at):
            effects += gpsStateEffects(state, ts: time.utc(for: at))
        case .lastKnownPosition(let lat, let lon, let at):
            if sun == nil { effects += seedPosition(latitude: lat, longitude: lon, at: at) }
        case .watchdogTick:
            // Reaching here means the event stream and the core are moving: that is what the watchdog guards.
            effects.append(.serviceAlive)
        case .lapButton(let press, let at):
            effects += lapButton(press, at: at)
        case .stateStorage(let storage, let at):
            effects += stateStorageEffects(storage, at: at)
        case .recordingEnded(let at):
            effects += recorder.release { $0.system }.map { .record($0) }
            effects += recorder.endRide(time: time.utc(for: at)).map { .record($0) }
        }
        if let signal = newLEDSignal(now: event.receiveTime.monotonicSeconds) { effects.append(.showOnLED(signal)) }
        return withReadingQoS(effects)
    }

    /// Readings (not retained state, not absolute topics) go out at `mqtt.qos`.
    private func withReadingQoS(_ effects: [Effect]) -> [Effect] {
        guard settings.readingQoS != 1 else { return effects }
        return effects.map { effect in
            guard case .publish(var publication) = effect, !publication.retain, !publication.absolute else { return effect }
            publication.qos = settings.readingQoS
            return .publish(publication)
        }
    }

    /// What to publish before any event: Home Assistant's discovery (an earlier release's configs cleared first,
    /// sensors no longer configured removed and forgotten).
    public func startupEffects() -> [Effect] {
        guard let ha = settings.homeAssistant else { return [.serviceReady] }
        var effects = (ha.legacySensors.map { ha.legacyMigration(sensors: $0) } ?? []).map { Effect.publish($0) }
        effects.append(.publish(ha.deviceConfig(sensors: sortedAnnouncedSensors, removed: ha.forgottenSensors)))
        if !ha.forgottenSensors.isEmpty { effects.append(.rememberAnnouncedSensors(sortedAnnouncedSensors)) }
        return effects + [.serviceReady]
    }

    var sortedAnnouncedSensors: [AnnouncedSensor] {
        announcedSensors.values.sorted { $0.sensor.topic < $1.sensor.topic }
    }

    /// The last word at an orderly stop, after every source has stopped: the final ride summary, every
    /// device's retained state set to `stopped` (nothing may still claim a fix or a connection), a last
    /// `health`, and, where asked (the demo), the discovery configs removed.
    public mutating func shutdownEffects(at receive: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: receive)
        // Points still waiting for a GPS fix that never came go to the ride log with the system clock's dates.
        var effects: [Effect] = recorder.release { $0.system }.map { .record($0) }
        effects.append(.publish(rideSummary(ts: ts, final: true)))
        if gpsState != nil { effects += gpsStateEffects(.stopped, ts: ts) }
        for sensor in sensorStates.keys.sorted(by: { $0.topic < $1.topic }) {
            effects += sensorStateEffects(sensor, .stopped, reason: nil, ts: ts)
        }
        effects += healthEffects(at: receive, force: true)
        if let ha = settings.homeAssistant, ha.removeAtStop { effects.append(.publish(ha.deviceRemoval())) }
        return effects
    }

    /// Rate limit: true when a message on `topic` may go now; otherwise it is counted as coalesced.
    mutating func admit(_ topic: String, at ts: Timestamp, interval: Double) -> Bool {
        guard interval > 0 else { return true }
        if let last = lastSent[topic], ts - last < interval, ts >= last {
            coalesced[topic, default: 0] += 1
            return false
        }
        lastSent[topic] = ts
        return true
    }

}
