/// The pure heart of the gateway: events in, effects out. It owns the derived state (time reference,
/// zone, ride totals, sequence numbers) and reads no clock: every time comes with its event.
public struct GatewayCore: Sendable {
    public struct Settings: Sendable {
        public var zones: HeartRateZones
        public var zoneMarginBPM: Int
        public var zoneDwellSeconds: Double
        public var autoPauseSpeed: Double
        /// Ride-time seconds between `ride` summaries.
        public var rideSummaryInterval: Double
        public var heartRateEnabled: Bool

        public init(zones: HeartRateZones, zoneMarginBPM: Int = 2, zoneDwellSeconds: Double = 3,
                    autoPauseSpeed: Double = 1.0, rideSummaryInterval: Double = 10, heartRateEnabled: Bool = true) {
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
    private var contact: HeartRateMeasurement.SensorContact = .notSupported
    private var gpsState: GPSDeviceState?

    public init(settings: Settings) {
        self.settings = settings
        ride = RideTracker(autoPauseSpeed: settings.autoPauseSpeed)
        zone = ZoneTracker(zones: settings.zones, marginBPM: settings.zoneMarginBPM, dwellSeconds: settings.zoneDwellSeconds)
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
        var effects: [Effect] = []
        switch event {
        case .heartRate(let strap, let measurement, let at):
            let ts = time.utc(for: at)
            contact = measurement.sensorContact
            var shownZone: Int?
            if measurement.sensorContact != .notDetected, measurement.beatsPerMinute > 0 {
                shownZone = zone.update(bpm: measurement.beatsPerMinute, at: ts)
            }
            let payload = Payloads.heartRate(measurement, strap: strap, zone: shownZone, ts: ts,
                                             seq: nextSequence("heart_rate"), clockTrusted: time.isTrusted)
            effects.append(.publish(Publication(topic: "heart_rate", payload: payload)))

        case .heartRateUndecodable:
            break // logged by the source; nothing trustworthy to publish

        case .strapState(let strap, let state, let at):
            guard strapStates[strap] != state else { break }
            strapStates[strap] = state
            let payload = Payloads.deviceState(state.rawValue, ts: time.utc(for: at))
            effects.append(.publish(Publication(topic: "strap/\(strap)/state", payload: payload, retain: true)))

        case .gpsFix(let fix, let at):
            time.anchor(to: fix, receivedAt: at)
            let ts = fix.time ?? time.utc(for: at)
            ride.add(fix)
            effects.append(.publish(Publication(
                topic: "gps", payload: Payloads.gps(fix, ride: ride.summary, ts: ts, seq: nextSequence("gps")))))
            effects += gpsStateEffects(fix.hasPosition ? .ok : .noFix, ts: ts)
            if fix.hasPosition, lastRideSummary.map({ ts - $0 >= settings.rideSummaryInterval }) ?? true {
                lastRideSummary = ts
                effects.append(.publish(rideSummary(ts: ts)))
            }

        case .gpsState(let state, let at):
            effects += gpsStateEffects(state, ts: time.utc(for: at))
        }
        if let signal = newLEDSignal() { effects.append(.showOnLED(signal)) }
        return effects
    }

    /// The `ride` summary now, for a final publication at shutdown.
    public mutating func rideSummary(ts: Timestamp) -> Publication {
        let payload = Payloads.ride(ride.summary, secondsInZone: zone.secondsInZone, ts: ts, seq: nextSequence("ride"))
        return Publication(topic: "ride", payload: payload)
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
            return gpsState == .ok ? .off : .noGPSFix
        }
        let states = Set(strapStates.values)
        if states.contains(.connected) || (strapStates.isEmpty && zone.zone != nil) {
            if contact == .notDetected { return .noSensorContact }
            if let z = zone.zone { return .zone(z, of: settings.zones.count) }
            return .searchingForStrap
        }
        if states.contains(.lost) { return .strapLost }
        return .searchingForStrap
    }
}
