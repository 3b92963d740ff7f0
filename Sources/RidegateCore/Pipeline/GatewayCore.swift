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
    private var sequence: [String: Int] = [:]
    private var lastRideSummary: Timestamp?
    private var led = LEDChoice()
    /// Every sensor heard of: its state, how often its link was lost, and why last.
    private var sensors: [SensorRef: SensorStatus] = [:]
    private var contact: HeartRateMeasurement.SensorContact = .notSupported
    private var gpsState: GPSDeviceState?
    private var stateStorage = StateStorage.writable
    private var sun: SunSchedule
    private var lastSent: [String: Timestamp] = [:]
    private var lastPosition: Timestamp?
    /// The GPS second of the last clock sample.
    private var lastClockSecond: Double?
    private var cyclingSensors: [String: CyclingSensorState] = [:]
    public internal(set) var ridePower = RidePowerTotals()
    public internal(set) var elevation = ElevationTotals()
    public internal(set) var heartRateTotals = HeartRateTotals()
    public internal(set) var powerZone: ZoneTracker?
    /// Time in each zone, from the readings themselves (GPS time).
    public internal(set) var heartRateZoneTime: ZoneTime
    public internal(set) var powerZoneTime: ZoneTime?
    /// What each sensor was announced to Home Assistant with (announced again when it measures more); at start,
    /// what an earlier run announced.
    private var announcedSensors: [SensorRef: AnnouncedSensor] = [:]
    private var wheel: WheelDistance
    /// The newest sensor values and when they came (monotonic seconds), for the ride log's points.
    /// What the ride log keeps: points from fixes and, without a position, from the sensors; laps; sensors.
    public internal(set) var recorder: RideRecorder
    /// Where the current lap began (for its announcement).
    private var lapStart: (time: Timestamp?, distance: Double, moving: Double) = (nil, 0, 0)
    private var startedAt: Double?
    private var lastHealth: Double?
    /// Monotonic seconds between `health` messages.
    public var healthInterval: Double = 60
    /// Readings held back by the rate limits, per topic.
    public internal(set) var coalesced: [String: Int] = [:]
    /// GPS epochs rejected for their time, for the log (said once a minute at most, counted).
    private var timeRejections = RepeatedProblem(interval: 60)

    private struct SensorStatus {
        var state: SensorState
        var losses = 0
        var lastReason: String?
    }

    public init(settings: Settings) {
        self.settings = settings
        time = TimeReference(tolerance: settings.gpsTimeTolerance)
        ride = RideTracker(autoPauseSpeed: settings.autoPauseSpeed)
        zone = ZoneTracker(zones: settings.zones, margin: settings.zoneMarginBPM, dwellSeconds: settings.zoneDwellSeconds)
        wheel = WheelDistance(fallbackAfter: settings.wheelFallbackAfter)
        sun = SunSchedule(moveThresholdMeters: settings.sunMoveThresholdMeters, interval: settings.sunPublishInterval,
                          warningLead: settings.sunsetWarningLead)
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
    private mutating func nextSequence(_ topic: String) -> Int {
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
            if !sun.hasReported { effects += seedPosition(latitude: lat, longitude: lon, at: at) }
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
        if let signal = led.change(for: ledSituation, now: event.receiveTime.monotonicSeconds) { effects.append(.showOnLED(signal)) }
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

    private var sortedAnnouncedSensors: [AnnouncedSensor] {
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
        for sensor in sensors.keys.sorted(by: { $0.topic < $1.topic }) {
            effects += sensorStateEffects(sensor, .stopped, reason: nil, ts: ts)
        }
        effects += healthEffects(at: receive, force: true)
        if let ha = settings.homeAssistant, ha.removeAtStop { effects.append(.publish(ha.deviceRemoval())) }
        return effects
    }

    /// Rate limit: true when a message on `topic` may go now; otherwise it is counted as coalesced.
    private mutating func admit(_ topic: String, at ts: Timestamp, interval: Double) -> Bool {
        guard interval > 0 else { return true }
        if let last = lastSent[topic], ts - last < interval, ts >= last {
            coalesced[topic, default: 0] += 1
            return false
        }
        lastSent[topic] = ts
        return true
    }

}

/// GPS fixes: judged against the time reference first (a fix with a wrong date counts for nothing), then the
/// ride, the ride log, `gps`, `position`, the ride summary and the sun.
extension GatewayCore {
    private mutating func gpsFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        switch time.admit(fix, at: received) {
        case .accept(let epochs, let step):
            var effects: [Effect] = []
            if let step {
                effects.append(.log(LogRecord(.warning, "the GPS time moved and stayed there; following it", [
                    ("gps.step_s", String(Int(step.rounded()))), ("gps.time", fix.time?.iso8601 ?? "-"),
                    ("gps.time_steps", String(time.steps)),
                ])))
            }
            if time.isTrusted, recorder.hasHeldPoints {
                let reference = time
                effects += recorder.release(before: epochs.first?.fix.time) { reference.utc(for: $0) }.map { .record($0) }
            }
            for epoch in epochs { effects += timedFix(epoch.fix, at: epoch.received) }
            return effects
        case .wait:
            return []
        case .reject(let offBy):
            guard let count = timeRejections.occurred(at: received.monotonicSeconds) else { return [] }
            return [.log(LogRecord(.warning, "a GPS epoch's time is off the established GPS time; the epoch is ignored", [
                ("gps.time", fix.time?.iso8601 ?? "-"), ("gps.expected", time.utc(for: received).iso8601),
                ("gps.off_by_s", String(Int(offBy.rounded()))), ("gps.ignored", String(count)),
                ("gps.time_rejected", String(time.rejectedEpochs)),
            ]))]
        case .untimed:
            return untimedFix(fix, at: received)
        }
    }

    /// A fix without a position (or a date to trust): the receiver's state and its `gps` message, dated by the
    /// reference (a receiver without a fix reports its own unsynchronised clock).
    private mutating func untimedFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        let ts = time.isTrusted ? time.utc(for: received) : fix.time ?? received.system
        var effects: [Effect] = []
        if admit(Topic.gps.name, at: ts, interval: settings.gpsMinimumInterval) {
            let seq = nextSequence(Topic.gps.name)
            effects.append(.publish(Publication(topic: .gps, payload: Payloads.gps(fix, ride: ride.summary, ts: ts, seq: seq), sequence: seq)))
        }
        return effects + gpsStateEffects(fix.hasPosition ? .ok : .noFix, ts: ts)
    }

    /// A fix with a position whose time the reference accepted.
    private mutating func timedFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        guard let ts = fix.time, let latitude = fix.latitude, let longitude = fix.longitude else { return [] }
        var effects: [Effect] = []
        if settings.clockSamples, let sample = clockSample(fix, at: received) { effects.append(.clockSample(sample)) }
        ride.add(fix)
        elevation.add(altitude: fix.altitudeMSL, hdop: fix.hdop, at: ts)
        wheel.add(fix, at: received.monotonicSeconds)
        effects += logged(recorder.fix(fix, time: ts, distance: ride.summary.distanceMeters, moving: ride.summary.isMoving,
                                       now: received.monotonicSeconds))
        if admit(Topic.gps.name, at: ts, interval: settings.gpsMinimumInterval) {
            let seq = nextSequence(Topic.gps.name)
            effects.append(.publish(Publication(topic: .gps, payload: Payloads.gps(fix, ride: ride.summary, ts: ts, seq: seq), sequence: seq)))
        }
        effects += gpsStateEffects(.ok, ts: ts)
        if lastPosition.map({ ts - $0 >= settings.positionInterval || ts < $0 }) ?? true {
            lastPosition = ts
            effects.append(.publish(Publication(topic: .position, payload: Payloads.position(
                latitude: latitude, longitude: longitude, hdop: fix.hdop, ts: ts), retain: true)))
        }
        if lastRideSummary.map({ ts - $0 >= settings.rideSummaryInterval }) ?? true {
            lastRideSummary = ts
            effects.append(.publish(rideSummary(ts: ts)))
        }
        return effects + sunEffects(latitude: latitude, longitude: longitude, now: ts)
    }
}

/// The sensors' readings: heart rate (zone, ride totals, the ride log's values), power (3 s and 10 s averages,
/// power zone, cadence and wheel from its crank and wheel data), speed/cadence, and what a sensor says of itself.
extension GatewayCore {
    private mutating func heartRate(strap: String, _ measurement: HeartRateMeasurement, at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        contact = measurement.sensorContact
        var effects: [Effect] = []
        var shownZone: Int?
        if measurement.sensorContact != .notDetected, measurement.beatsPerMinute > 0 {
            recorder.heartRate(measurement.beatsPerMinute, at: at.monotonicSeconds)
            effects += sensorPoints(ts: ts, received: at)
            heartRateTotals.add(measurement.beatsPerMinute)
            heartRateZoneTime.add(value: measurement.beatsPerMinute, at: ts.secondsSince1970)
            shownZone = zone.update(value: measurement.beatsPerMinute, at: ts)
        }
        guard admit(Topic.heartRate.name, at: ts, interval: settings.heartRateMinimumInterval) else { return effects }
        let seq = nextSequence(Topic.heartRate.name)
        let payload = Payloads.heartRate(measurement, strap: strap, zone: shownZone, ts: ts, seq: seq, clockTrusted: time.isTrusted)
        return effects + [.publish(Publication(topic: .heartRate, payload: payload, sequence: seq))]
    }

    private mutating func power(_ sensor: SensorRef, _ m: CyclingPowerMeasurement, at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        let now = at.monotonicSeconds
        var state = cyclingSensors[sensor.id] ?? CyclingSensorState()
        state.power.add(watts: Double(m.powerWatts), at: now)
        let step = state.update(wheel: m.wheel, crank: m.crank, at: now, circumferenceMillimetres: sensor.wheelMillimetres)
        let averages = (state.power.average(over: 3, at: now), state.power.average(over: 10, at: now))
        cyclingSensors[sensor.id] = state
        ridePower.add(watts: m.powerWatts, cadenceRPM: step.cadence, at: now, time: ts)
        recorder.power(m.powerWatts, at: now)
        powerZoneTime?.add(value: m.powerWatts, at: ts.secondsSince1970)
        // The zone follows the 3 s average: single readings swing by a hundred watts with every pedal stroke.
        var shownZone: Int?
        if powerZone != nil { shownZone = powerZone?.update(value: Int((averages.0 ?? Double(m.powerWatts)).rounded()), at: ts) }
        let effects = cycling(sensor, step, ts: ts, received: at)
        let topic = Topic.sensor(sensor, .power).name
        let seq = nextSequence(topic)
        let payload = Payloads.power(m, averages: averages, zone: shownZone, cadence: step.cadence, wheelSpeed: step.speed, ts: ts,
                                     seq: seq, clockTrusted: time.isTrusted)
        return effects + [.publish(Publication(topic: topic, payload: payload, sequence: seq))]
    }

    private mutating func speedCadence(_ sensor: SensorRef, _ m: CyclingSpeedCadenceMeasurement, at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        var state = cyclingSensors[sensor.id] ?? CyclingSensorState()
        let step = state.update(wheel: m.wheel, crank: m.crank, at: at.monotonicSeconds, circumferenceMillimetres: sensor.wheelMillimetres)
        cyclingSensors[sensor.id] = state
        let effects = cycling(sensor, step, ts: ts, received: at)
        let topic = Topic.sensor(sensor, .speedCadence).name
        let seq = nextSequence(topic)
        let payload = Payloads.speedCadence(cadence: step.cadence, wheelSpeed: step.speed, ts: ts, seq: seq, clockTrusted: time.isTrusted)
        return effects + [.publish(Publication(topic: topic, payload: payload, sequence: seq))]
    }

    /// A kind the core has no model of (a profile alone added it): its values published as they came.
    private mutating func sensorReading(_ sensor: SensorRef, _ values: [String: Double], at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        let topic = Topic.sensorReadings(sensor).name
        let seq = nextSequence(topic)
        let payload = Payloads.sensorReading(values, kind: sensor.kind, ts: ts, seq: seq, clockTrusted: time.isTrusted)
        return [.publish(Publication(topic: topic, payload: payload, sequence: seq))]
    }

    /// A sensor's name, battery and what it measures: its retained `info`, the ride log's device, and Home
    /// Assistant's entities for it (again when it turns out to measure more).
    private mutating func sensorDetails(_ sensor: SensorRef, _ details: SensorDetails, at: ReceiveTime) -> [Effect] {
        var json = JSONObjectWriter(capacity: 160)
        json.add("ts", time.utc(for: at).iso8601)
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
        var effects: [Effect] = [.publish(Publication(topic: .sensor(sensor, .info), payload: json.finish(), retain: true))]
        effects.append(.record(.device(RideDevice(sensorID: sensor.id, kind: sensor.kind, measures: details.measures, name: details.name,
                                                  manufacturer: details.manufacturer, model: details.model, serialNumber: details.serialNumber,
                                                  batteryPercent: details.batteryPercent))))
        let name = details.name ?? HomeAssistantDiscovery.defaultName(sensor)
        if let ha = settings.homeAssistant,
           announcedSensors[sensor].map({ !details.measures.isSubset(of: $0.measures) || $0.name != name }) ?? true {
            let measures = details.measures.union(announcedSensors[sensor]?.measures ?? [])
            announcedSensors[sensor] = AnnouncedSensor(sensor: sensor, name: name, measures: measures)
            effects.append(.publish(ha.deviceConfig(sensors: sortedAnnouncedSensors)))
            effects.append(.rememberAnnouncedSensors(sortedAnnouncedSensors))
        }
        return effects
    }
}

/// What the LED's choice (`LEDChoice`) reads of the gateway's state.
extension GatewayCore {
    private var ledSituation: LEDChoice.Situation {
        var situation = LEDChoice.Situation()
        if settings.ledZones == .power, let tracker = powerZone, let zone = tracker.zone {
            situation.powerZone = LEDChoice.Zone(zone: zone, of: tracker.zones.count)
        }
        situation.powerMeterConnected = sensors.contains { $0.key.kind.zones == .power && $0.value.state == .connected }
        situation.anySensorKnown = !sensors.isEmpty
        situation.heartRateEnabled = settings.heartRateEnabled
        situation.heartRateZone = zone.zone.map { LEDChoice.Zone(zone: $0, of: settings.zones.count) }
        situation.straps = Set(sensors.filter { $0.key.kind.zones == .heartRate }.values.map(\.state))
        situation.noSensorContact = contact == .notDetected
        situation.gpsFix = gpsState == .ok
        situation.sunsetWarning = sunsetWarning
        situation.stateReadOnly = stateStorage == .readOnly
        situation.lastGoodConfig = settings.runsLastGoodConfig
        return situation
    }
}

/// Laps and the ride's end on the rider's say: the lap button (short: a lap; long: the ride ends now) and
/// auto-lap, each kept in the ride log, announced on `lap` and acknowledged on the LED.
extension GatewayCore {
    private mutating func lapButton(_ press: ButtonPresses.Press, at receive: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: receive)
        led.acknowledge(at: receive.monotonicSeconds)
        switch press {
        case .short: return logged(recorder.manualLap(time: ts, distance: ride.summary.distanceMeters))
        case .long: return endRide(at: ts)
        }
    }

    /// The ride log's entries as effects, each lap among them also announced.
    private mutating func logged(_ entries: [RideLogEntry]) -> [Effect] {
        var effects: [Effect] = []
        for entry in entries {
            effects.append(.record(entry))
            if case .lap(let mark) = entry { effects.append(.publish(lapAnnouncement(mark))) }
        }
        return effects
    }

    /// `lap`: the lap's number, what ended it, and its time, moving time and distance.
    private mutating func lapAnnouncement(_ mark: LapMark) -> Publication {
        let seq = nextSequence(Topic.lap.name)
        let summary = ride.summary
        var json = JSONObjectWriter(capacity: 200)
        json.add("ts", mark.time.iso8601)
        json.add("seq", seq)
        json.add("lap", recorder.laps)
        json.add("trigger", mark.trigger.rawValue)
        json.add("lap_time_s", lapStart.time.map { mark.time - $0 } ?? summary.elapsedSeconds, decimals: 0)
        json.add("lap_moving_s", summary.movingSeconds - lapStart.moving, decimals: 0)
        json.add("lap_distance_m", summary.distanceMeters - lapStart.distance, decimals: 1)
        json.add("distance_m", summary.distanceMeters, decimals: 1)
        json.add("clock_trusted", time.isTrusted)
        lapStart = (mark.time, summary.distanceMeters, summary.movingSeconds)
        return Publication(topic: .lap, payload: json.finish(), sequence: seq)
    }

    /// The rider ended the ride: its final summary (retained), its end in the ride log, and the live totals
    /// start again for the next one.
    private mutating func endRide(at ts: Timestamp) -> [Effect] {
        var effects: [Effect] = [.publish(rideSummary(ts: ts, final: true))]
        effects += recorder.endRide(time: ts).map { .record($0) }
        ride = RideTracker(autoPauseSpeed: settings.autoPauseSpeed)
        ridePower = RidePowerTotals()
        elevation = ElevationTotals()
        heartRateTotals = HeartRateTotals()
        heartRateZoneTime = ZoneTime(zones: settings.zones)
        powerZoneTime = settings.powerZones.map { ZoneTime(zones: $0) }
        lapStart = (nil, 0, 0)
        return effects
    }
}

/// The ride: its summary, its wheel, and the points the sensors make while there is no position.
extension GatewayCore {
    /// The `ride` summary now. Along the ride a reading like any other (spooled, replayed); the `final` one at
    /// the orderly stop is retained, so a subscriber that comes after the ride still gets its totals.
    public mutating func rideSummary(ts: Timestamp, final: Bool = false) -> Publication {
        let seq = nextSequence(Topic.ride.name)
        let totals = Payloads.RideTotals(ride: ride.summary, secondsInZone: heartRateZoneTime.seconds, power: ridePower,
                                         secondsInPowerZone: powerZoneTime?.seconds, wheelEstimate: wheel.calibration.estimateMillimetres,
                                         heartRate: heartRateTotals, elevation: elevation)
        return Publication(topic: .ride, payload: Payloads.ride(totals, final: final, ts: ts, seq: seq), retain: final, sequence: seq)
    }

    /// A cycling sensor's step: its cadence and wheel speed for the ride log, its wheel's distance, and a point
    /// from the sensors while there is no position fix.
    private mutating func cycling(_ sensor: SensorRef, _ step: CyclingSensorState.Step, ts: Timestamp, received: ReceiveTime) -> [Effect] {
        let now = received.monotonicSeconds
        if let cadence = step.cadence { recorder.cadence(cadence, at: now) }
        if let speed = step.speed { recorder.wheelSpeed(speed, at: now) }
        countWheel(sensor, step, at: now, until: time.isTrusted ? ts : nil)
        return sensorPoints(ts: ts, received: received)
    }

    /// Points from the sensors (once a second) while the receiver has no position: a tunnel, or indoors. They
    /// need a time to stand on: GPS time (the clock trusted), or, with the GPS off, the system clock; with a GPS
    /// but no fix yet (a Pi may think it is 1970) they wait for the first fix to date them.
    private mutating func sensorPoints(ts: Timestamp, received: ReceiveTime) -> [Effect] {
        guard gpsState != .ok else { return [] }
        let hold = !time.isTrusted && settings.gpsEnabled
        return logged(recorder.sensors(time: ts, distance: ride.summary.distanceMeters, received: received, hold: hold))
    }

    /// A wheel's revolutions: the ride's distance while there is no position fix, and the wheel's
    /// calibration against GPS while there is. One wheel counts: the first sensor that reported one.
    /// `until`: the GPS time the revolutions reach, when the clock is trusted (fixes read late that it covers then
    /// add no distance of their own).
    private mutating func countWheel(_ sensor: SensorRef, _ step: CyclingSensorState.Step, at now: Double, until: Timestamp?) {
        guard step.wheelRevolutions > 0 else { return }
        let counted = wheel.count(sensor: sensor.id, revolutions: step.wheelRevolutions, seconds: step.wheelSeconds, at: now)
        guard counted.revolutions > 0 else { return }
        ride.addWheel(metres: counted.revolutions * sensor.wheelMillimetres / 1000, seconds: counted.seconds, until: until)
    }
}

/// The sun for where the rider is: published when the day or the place changes, and as a countdown.
extension GatewayCore {
    /// Publishes the sun for a position remembered from an earlier run, before the first fix, stamped with
    /// the system clock (and saying so).
    public mutating func seedPosition(latitude: Double, longitude: Double, at receive: ReceiveTime) -> [Effect] {
        sun.recall(latitude: latitude, longitude: longitude)
        return sunEffects(latitude: latitude, longitude: longitude, now: time.utc(for: receive), force: true)
    }

    /// Whether the last sun report warned that sunset is near.
    public var sunsetWarning: Bool { sun.sunsetWarning }

    /// The sun, retained, when `SunSchedule` says it is due; the position, when it is to be remembered.
    private mutating func sunEffects(latitude: Double, longitude: Double, now: Timestamp, force: Bool = false) -> [Effect] {
        guard settings.sunEnabled, let (report, remember) = sun.report(latitude: latitude, longitude: longitude, now: now, force: force) else {
            return []
        }
        let seq = nextSequence(Topic.sun.name)
        var effects: [Effect] = [.publish(Publication(
            topic: .sun, payload: report.payload(ts: now, seq: seq, clockTrusted: time.isTrusted), retain: true, sequence: seq))]
        if remember { effects.append(.rememberPosition(latitude: latitude, longitude: longitude)) }
        return effects
    }
}

/// Device and gateway status: health, each sensor's and the GPS's state, clock samples for chrony.
extension GatewayCore {
    /// `health` once a minute, carried by whatever event comes next (no timer of its own).
    private mutating func healthEffects(at receive: ReceiveTime, force: Bool = false) -> [Effect] {
        let now = receive.monotonicSeconds
        if startedAt == nil { startedAt = now }
        if !force, let last = lastHealth, now - last < healthInterval { return [] }
        lastHealth = now
        var json = JSONObjectWriter(capacity: 256)
        json.add("ts", time.utc(for: receive).iso8601)
        json.add("uptime_s", now - (startedAt ?? now), decimals: 0)
        json.add("clock_trusted", time.isTrusted)
        json.add("clock_offset_s", time.systemClockOffset, decimals: 3)
        json.add("gps_time_rejected", time.rejectedEpochs)
        json.add("gps_time_steps", time.steps)
        json.add("strap_reconnects", sensors.filter { $0.key.kind.family == .strap }.values.reduce(0) { $0 + $1.losses })
        json.add("sensor_reconnects", sensors.filter { $0.key.kind.family == .sensor }.values.reduce(0) { $0 + $1.losses })
        json.add("coalesced", coalesced.values.reduce(0, +))
        json.add("gps_state", gpsState?.rawValue)
        json.add("state_storage", stateStorage.rawValue)
        json.add("config", settings.runsLastGoodConfig ? "last_good" : "file")
        return [.publish(Publication(topic: .health, payload: json.finish(), retain: true))]
    }

    private mutating func sensorStateEffects(_ sensor: SensorRef, _ state: SensorState, reason: String?, ts: Timestamp) -> [Effect] {
        guard sensors[sensor]?.state != state else { return [] }
        var status = sensors[sensor] ?? SensorStatus(state: state)
        status.state = state
        if state == .lost { status.losses += 1 }
        if let reason { status.lastReason = reason }
        sensors[sensor] = status
        let extra: [(String, String)] = status.lastReason.map { [("last_reason", $0)] } ?? []
        let payload = Payloads.deviceState(state.rawValue, ts: ts, extra: extra, reconnects: status.losses)
        return [.publish(Publication(topic: .sensor(sensor, .state), payload: payload, retain: true))]
    }

    /// A change of the state directory's file system shows on `health` at once (and on the LED).
    private mutating func stateStorageEffects(_ storage: StateStorage, at receive: ReceiveTime) -> [Effect] {
        guard stateStorage != storage else { return [] }
        stateStorage = storage
        return healthEffects(at: receive, force: true)
    }

    private mutating func gpsStateEffects(_ state: GPSDeviceState, ts: Timestamp) -> [Effect] {
        guard gpsState != state else { return [] }
        gpsState = state
        return [.publish(Publication(topic: .gpsState, payload: Payloads.deviceState(state.rawValue, ts: ts), retain: true))]
    }

    /// The system clock against a fix's time: fixes with a position and a sane date only (before a fix,
    /// receivers send their own unsynchronised clock), one per GPS second (the second's first fix: at 10 Hz
    /// the others say nothing new about the clock).
    private mutating func clockSample(_ fix: GPSFix, at receive: ReceiveTime) -> ClockSample? {
        guard fix.hasPosition, let gpsTime = fix.time, gpsTime.date.year >= 2020 else { return nil }
        let second = gpsTime.secondsSince1970.rounded(.down)
        if let last = lastClockSecond, second == last { return nil }
        lastClockSecond = second
        return ClockSample(systemTime: receive.system, offset: gpsTime - receive.system)
    }
}
