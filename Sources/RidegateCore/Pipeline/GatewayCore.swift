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
        /// The wheel's circumference for speed from a wheel sensor or a power meter's wheel data.
        public var wheelCircumferenceMillimetres: Double = 2105
        /// Seconds of GPS time between `position` messages (the device tracker's; its every change is a
        /// row in Home Assistant's database).
        public var positionInterval: Double = 5

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
    public private(set) var time = TimeReference()
    public private(set) var ride: RideTracker
    public private(set) var zone: ZoneTracker
    private var sequence: [String: Int] = [:]
    private var lastRideSummary: Timestamp?
    private var ledSignal: LEDSignal = .off
    private var strapStates: [String: StrapState] = [:]
    private var strapLosses: [String: Int] = [:]
    private var strapLastReason: [String: String] = [:]
    private var contact: HeartRateMeasurement.SensorContact = .notSupported
    private var gpsState: GPSDeviceState?
    private var sun: (date: CivilDate, latitude: Double, longitude: Double, published: Timestamp)?
    private var remembered: (latitude: Double, longitude: Double)?
    public private(set) var sunsetWarning = false
    private var lastSent: [String: Timestamp] = [:]
    private var lastPosition: Timestamp?
    private var cyclingSensors: [String: CyclingSensorState] = [:]
    public private(set) var ridePower = RidePowerTotals()
    private var announcedStraps: Set<String> = []
    private var startedAt: Double?
    private var lastHealth: Double?
    /// Monotonic seconds between `health` messages.
    public var healthInterval: Double = 60
    /// Readings held back by the rate limits, per topic.
    public private(set) var coalesced: [String: Int] = [:]

    public init(settings: Settings) {
        self.settings = settings
        ride = RideTracker(autoPauseSpeed: settings.autoPauseSpeed)
        zone = ZoneTracker(zones: settings.zones, margin: settings.zoneMarginBPM, dwellSeconds: settings.zoneDwellSeconds)
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
            let ts = time.utc(for: at)
            contact = measurement.sensorContact
            var shownZone: Int?
            if measurement.sensorContact != .notDetected, measurement.beatsPerMinute > 0 {
                shownZone = zone.update(value: measurement.beatsPerMinute, at: ts)
            }
            guard admit("heart_rate", at: ts, interval: settings.heartRateMinimumInterval) else { break }
            let seq = nextSequence("heart_rate")
            let payload = Payloads.heartRate(measurement, strap: strap, zone: shownZone, ts: ts, seq: seq, clockTrusted: time.isTrusted)
            effects.append(.publish(Publication(topic: "heart_rate", payload: payload, sequence: seq)))

        case .heartRateUndecodable, .cyclingUndecodable:
            break // logged by the source; nothing trustworthy to publish

        case .cyclingPower(let sensor, let m, let at):
            let ts = time.utc(for: at)
            let now = at.monotonicSeconds
            var state = cyclingSensors[sensor] ?? CyclingSensorState()
            state.power.add(watts: Double(m.powerWatts), at: now)
            let (cadence, speed) = state.update(wheel: m.wheel, crank: m.crank, at: now,
                                                circumferenceMillimetres: settings.wheelCircumferenceMillimetres)
            let averages = (state.power.average(over: 3, at: now), state.power.average(over: 10, at: now))
            cyclingSensors[sensor] = state
            ridePower.add(watts: m.powerWatts, cadenceRPM: cadence, at: now, time: ts)
            let seq = nextSequence("power")
            let payload = Payloads.power(m, sensor: sensor, averages: averages, cadence: cadence, wheelSpeed: speed, ts: ts, seq: seq,
                                         clockTrusted: time.isTrusted)
            effects.append(.publish(Publication(topic: "power", payload: payload, sequence: seq)))

        case .cyclingSpeedCadence(let sensor, let m, let at):
            let ts = time.utc(for: at)
            var state = cyclingSensors[sensor] ?? CyclingSensorState()
            let (cadence, speed) = state.update(wheel: m.wheel, crank: m.crank, at: at.monotonicSeconds,
                                                circumferenceMillimetres: settings.wheelCircumferenceMillimetres)
            cyclingSensors[sensor] = state
            let seq = nextSequence("speed_cadence")
            let payload = Payloads.speedCadence(sensor: sensor, cadence: cadence, wheelSpeed: speed, ts: ts, seq: seq, clockTrusted: time.isTrusted)
            effects.append(.publish(Publication(topic: "speed_cadence", payload: payload, sequence: seq)))

        case .strapState(let strap, let state, let reason, let at):
            effects += strapStateEffects(strap, state, reason: reason, ts: time.utc(for: at))

        case .strapDetails(let strap, let details, let at):
            var json = JSONObjectWriter(capacity: 128)
            json.add("ts", time.utc(for: at).iso8601)
            json.add("name", details.name)
            json.add("body_location", details.bodyLocation)
            json.add("battery_pct", details.batteryPercent)
            effects.append(.publish(Publication(topic: "strap/\(strap)/info", payload: json.finish(), retain: true)))
            if let ha = settings.homeAssistant, announcedStraps.insert(strap).inserted {
                effects += ha.strapConfigs(strapID: strap, name: details.name).map { .publish($0) }
            }

        case .gpsFix(let fix, let at):
            time.anchor(to: fix, receivedAt: at)
            let ts = fix.time ?? time.utc(for: at)
            ride.add(fix)
            if admit("gps", at: ts, interval: settings.gpsMinimumInterval) {
                let seq = nextSequence("gps")
                effects.append(.publish(Publication(topic: "gps", payload: Payloads.gps(fix, ride: ride.summary, ts: ts, seq: seq), sequence: seq)))
            }
            effects += gpsStateEffects(fix.hasPosition ? .ok : .noFix, ts: ts)
            if fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude,
               lastPosition.map({ ts - $0 >= settings.positionInterval || ts < $0 }) ?? true {
                lastPosition = ts
                effects.append(.publish(Publication(topic: "position", payload: Payloads.position(
                    latitude: lat, longitude: lon, hdop: fix.hdop, ts: ts), retain: true)))
            }
            if fix.hasPosition, lastRideSummary.map({ ts - $0 >= settings.rideSummaryInterval }) ?? true {
                lastRideSummary = ts
                effects.append(.publish(rideSummary(ts: ts)))
            }
            if fix.hasPosition, time.isTrusted, let lat = fix.latitude, let lon = fix.longitude {
                effects += sunEffects(latitude: lat, longitude: lon, now: ts)
            }

        case .gpsState(let state, let at):
            effects += gpsStateEffects(state, ts: time.utc(for: at))

        case .lastKnownPosition(let lat, let lon, let at):
            if sun == nil { effects += seedPosition(latitude: lat, longitude: lon, at: at) }

        case .watchdogTick:
            // Reaching here means the event stream and the core are moving: that is what the watchdog guards.
            effects.append(.serviceAlive)
        }
        if let signal = newLEDSignal() { effects.append(.showOnLED(signal)) }
        return effects
    }

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
        json.add("strap_reconnects", strapLosses.values.reduce(0, +))
        json.add("coalesced", coalesced.values.reduce(0, +))
        json.add("gps_state", gpsState?.rawValue)
        return [.publish(Publication(topic: "health", payload: json.finish(), retain: true))]
    }

    /// What to publish before any event: Home Assistant's discovery configs for the gateway.
    public func startupEffects() -> [Effect] {
        (settings.homeAssistant?.gatewayConfigs() ?? []).map { .publish($0) } + [.serviceReady]
    }

    /// The last word at an orderly stop, after every source has stopped: the final ride summary, every
    /// device's retained state set to `stopped` (nothing may still claim a fix or a connection), a last
    /// `health`, and, where asked (the demo), the discovery configs removed.
    public mutating func shutdownEffects(at receive: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: receive)
        var effects: [Effect] = [.publish(rideSummary(ts: ts))]
        if gpsState != nil { effects += gpsStateEffects(.stopped, ts: ts) }
        for strap in strapStates.keys.sorted() { effects += strapStateEffects(strap, .stopped, reason: nil, ts: ts) }
        effects += healthEffects(at: receive, force: true)
        if let ha = settings.homeAssistant, ha.removeAtStop {
            effects += ha.removals(straps: announcedStraps.sorted()).map { .publish($0) }
        }
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

    /// Publishes the sun for a position remembered from an earlier run, before the first fix, stamped with
    /// the system clock (and saying so).
    public mutating func seedPosition(latitude: Double, longitude: Double, at receive: ReceiveTime) -> [Effect] {
        remembered = (latitude, longitude)
        return sunEffects(latitude: latitude, longitude: longitude, now: time.utc(for: receive), force: true)
    }

    /// The sun is republished when the solar day changes, when the rider has moved far enough for the
    /// times to shift, and every `sunPublishInterval` so the countdown moves; it is retained.
    private mutating func sunEffects(latitude: Double, longitude: Double, now: Timestamp, force: Bool = false) -> [Effect] {
        guard settings.sunEnabled else { return [] }
        let date = CivilDate(daysSince1970: Int(((now.secondsSince1970 + longitude / 15 * 3600) / 86_400).rounded(.down)))
        var due = force || sun == nil
        if let last = sun {
            let moved = GreatCircle.distanceMeters(lat1: last.latitude, lon1: last.longitude, lat2: latitude, lon2: longitude)
            due = due || last.date != date || moved >= settings.sunMoveThresholdMeters || now - last.published >= settings.sunPublishInterval
        }
        guard due else { return [] }
        let report = SunReport(latitude: latitude, longitude: longitude, now: now, warningLead: settings.sunsetWarningLead)
        sun = (date, latitude, longitude, now)
        sunsetWarning = report.sunsetWarning
        let seq = nextSequence("sun")
        var effects: [Effect] = [.publish(Publication(
            topic: "sun", payload: report.payload(ts: now, seq: seq, clockTrusted: time.isTrusted), retain: true, sequence: seq))]
        let far = remembered.map {
            GreatCircle.distanceMeters(lat1: $0.latitude, lon1: $0.longitude, lat2: latitude, lon2: longitude) >= 1000
        } ?? true
        if far {
            remembered = (latitude, longitude)
            effects.append(.rememberPosition(latitude: latitude, longitude: longitude))
        }
        return effects
    }

    /// The `ride` summary now, for a final publication at shutdown.
    public mutating func rideSummary(ts: Timestamp) -> Publication {
        let seq = nextSequence("ride")
        let payload = Payloads.ride(ride.summary, secondsInZone: zone.secondsInZone, power: ridePower, ts: ts, seq: seq)
        return Publication(topic: "ride", payload: payload, sequence: seq)
    }

    private mutating func strapStateEffects(_ strap: String, _ state: StrapState, reason: String?, ts: Timestamp) -> [Effect] {
        guard strapStates[strap] != state else { return [] }
        if state == .lost { strapLosses[strap, default: 0] += 1 }
        if let reason { strapLastReason[strap] = reason }
        strapStates[strap] = state
        var extra: [(String, String)] = []
        if let last = strapLastReason[strap] { extra.append(("last_reason", last)) }
        let payload = Payloads.deviceState(state.rawValue, ts: ts, extra: extra, reconnects: strapLosses[strap] ?? 0)
        return [.publish(Publication(topic: "strap/\(strap)/state", payload: payload, retain: true))]
    }

    private mutating func gpsStateEffects(_ state: GPSDeviceState, ts: Timestamp) -> [Effect] {
        guard gpsState != state else { return [] }
        gpsState = state
        return [.publish(Publication(topic: "gps/state", payload: Payloads.deviceState(state.rawValue, ts: ts), retain: true))]
    }

    private mutating func newLEDSignal() -> LEDSignal? {
        let signal = currentLEDSignal()
        guard signal != ledSignal else { return nil }
        ledSignal = signal
        return signal
    }

    private func currentLEDSignal() -> LEDSignal {
        guard settings.heartRateEnabled else {
            if sunsetWarning { return .sunsetSoon }
            return gpsState == .ok ? .off : .noGPSFix
        }
        let states = Set(strapStates.values)
        if states.contains(.connected) || (strapStates.isEmpty && zone.zone != nil) {
            if contact == .notDetected { return .noSensorContact }
            if let z = zone.zone { return sunsetWarning ? .zoneAtDusk(z, of: settings.zones.count) : .zone(z, of: settings.zones.count) }
            return .searchingForStrap
        }
        if states.contains(.lost) { return .strapLost }
        return .searchingForStrap
    }
}
