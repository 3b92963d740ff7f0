/// The pure heart of the gateway: events in, effects out, reading no clock (every time comes with its event).
/// A router: each event goes to the parts that own its state — GPS time (`TimeReference`), the ride
/// (`LiveRide`), the devices' states (`GatewayStatus`), the sun (`SunSchedule`), the LED (`LEDChoice`), where the
/// bike is shown (`LivePosition`) — and what they return becomes messages numbered by the `TopicLedger`, entries
/// for the ride log, and the LED.
public struct GatewayCore: Sendable {
    private let settings: Settings
    private var time: TimeReference
    private var ride: LiveRide
    private var status: GatewayStatus
    private var ledger = TopicLedger()
    private var led = LEDChoice()
    private var sun: SunSchedule
    private var live: LivePosition

    public init(settings: Settings) {
        self.settings = settings
        time = TimeReference(tolerance: settings.gpsTimeTolerance)
        ride = LiveRide(settings: settings)
        live = LivePosition(settings: settings)
        status = GatewayStatus(announced: settings.homeAssistant?.rememberedSensors ?? [])
        sun = SunSchedule(moveThresholdMeters: settings.sunMoveThresholdMeters, interval: settings.sunPublishInterval,
                          warningLead: settings.sunsetWarningLead)
    }

    /// Sequence counters persisted across restarts by `MQTTSink`'s store (the spool).
    public mutating func restoreSequences(_ values: [String: Int]) { ledger.restore(values) }
    public var sequences: [String: Int] { ledger.sequences }
    /// What the parts hold now, read-only: readings held back per topic, the ride's totals, the zone shown, GPS time, the sunset warning.
    public var coalesced: [String: Int] { ledger.coalesced }
    public var rideTotals: Payloads.RideTotals { ride.progress.totals }
    public var heartRateZone: Int? { ride.shownHeartRateZone?.zone }
    public var timeReference: TimeReference { time }
    public var sunsetWarning: Bool { sun.sunsetWarning }

    public mutating func handle(_ event: SourceEvent) -> [Effect] {
        var effects = healthEffects(at: event.receiveTime)
        switch event {
        case .sensorMeasurement(let sensor, let measurement, let at): effects += measured(sensor, measurement, at: at)
        case .sensorUndecodable: break // logged by the source; nothing trustworthy to publish
        case .sensorState(let sensor, let state, let reason, let at): effects += sensorState(sensor, state, reason: reason, ts: time.utc(for: at))
        case .sensorDetails(let sensor, let details, let at): effects += sensorDetails(sensor, details, at: at)
        case .gpsFix(let fix, let at): effects += gpsFix(fix, at: at)
        case .gpsState(let state, let at): effects += gpsState(state, ts: time.utc(for: at))
        case .lastKnownPosition(let lat, let lon, let at) where !sun.hasReported:
            // From an earlier run, before the first fix: the sun for it, stamped with the system clock (and saying so).
            sun.recall(latitude: lat, longitude: lon)
            effects += sunEffects(latitude: lat, longitude: lon, now: time.utc(for: at), force: true)
        case .lastKnownPosition: break
        case .watchdogTick: effects.append(.serviceAlive) // the event stream and the core are moving: what the watchdog guards
        case .lapButton(let press, let at):
            led.acknowledge(at: at.monotonicSeconds)
            let ts = time.utc(for: at)
            effects += press == .short ? logged(ride.manualLap(at: ts)) : endRide(at: ts)
        case .stateStorage(let storage, let at): // on the LED and `health` at once
            if status.update(storage: storage) { effects += healthEffects(at: at, force: true) }
        case .recordingEnded(let at):
            effects += ride.endRecording(at: time.utc(for: at)) { $0.system }.map { .record($0) }
        }
        let situation = LEDChoice.Situation(settings, status: status, ride: ride, sunsetWarning: sun.sunsetWarning)
        if let signal = led.change(for: situation, now: event.receiveTime.monotonicSeconds) { effects.append(.showOnLED(signal)) }
        return effects.withReadingQoS(settings.readingQoS)
    }

    /// What to publish before any event: Home Assistant's discovery (an earlier release's configs cleared first,
    /// sensors no longer configured removed and forgotten).
    public func startupEffects() -> [Effect] {
        guard let ha = settings.homeAssistant else { return [.serviceReady] }
        var effects = (ha.legacySensors.map { ha.legacyMigration(sensors: $0) } ?? []).map { Effect.publish($0) }
        effects.append(.publish(ha.deviceConfig(sensors: status.announcedSensors, removed: ha.forgottenSensors)))
        if !ha.forgottenSensors.isEmpty { effects.append(.rememberAnnouncedSensors(status.announcedSensors)) }
        return effects + [.serviceReady]
    }

    /// The last word at an orderly stop, after every source has stopped: points still waiting for a fix (dated by
    /// the system clock), the final ride summary, every device's retained state `stopped` (nothing may still claim
    /// a fix or a connection), a last `health`, and, where asked (the demo), the discovery configs removed.
    public mutating func shutdownEffects(at receive: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: receive)
        var effects: [Effect] = ride.releaseHeldPoints { $0.system }.map { .record($0) }
        effects.append(.publish(rideSummary(ts: ts, final: true)))
        if status.gps != nil { effects += gpsState(.stopped, ts: ts) }
        for sensor in status.knownSensors { effects += sensorState(sensor, .stopped, reason: nil, ts: ts) }
        effects += healthEffects(at: receive, force: true) + live.goingAway(at: ts).map { .publish($0) }
        if let ha = settings.homeAssistant, ha.removeAtStop { effects.append(.publish(ha.deviceRemoval())) }
        return effects
    }

    /// The `ride` summary now. Along the ride a reading like any other (spooled, replayed); the `final` one at
    /// the orderly stop is retained, so a subscriber that comes after the ride still gets its totals.
    public mutating func rideSummary(ts: Timestamp, final: Bool = false) -> Publication {
        let seq = ledger.next(Topic.ride.name)
        return Publication(topic: .ride, payload: Payloads.ride(ride.progress.totals, final: final, ts: ts, seq: seq), retain: final, sequence: seq)
    }

    /// A reading on `topic`, numbered (`payload` gets the `seq` and whether the clock is trusted).
    private mutating func publish(_ topic: String, _ payload: (Int, Bool) -> String) -> [Effect] {
        let seq = ledger.next(topic)
        return [.publish(Publication(topic: topic, payload: payload(seq, time.isTrusted), sequence: seq))]
    }

    /// Fixes: judged against GPS time first (a fix with a wrong date counts for nothing); held sensor points
    /// dated once the time is trusted.
    private mutating func gpsFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        switch time.admit(fix, at: received) {
        case .accept(let epochs, let step):
            var effects: [Effect] = step.map { [.log(.gpsTimeStepped(by: $0, fix: fix, steps: time.steps))] } ?? []
            if time.isTrusted, ride.hasHeldPoints {
                let reference = time
                effects += ride.releaseHeldPoints(before: epochs.first?.fix.time) { reference.utc(for: $0) }.map { .record($0) }
            }
            for epoch in epochs { effects += timedFix(epoch.fix, at: epoch.received) }
            return effects
        case .wait:
            return []
        case .reject(let offBy):
            guard let count = ledger.repeated("gps.time_rejected", at: received.monotonicSeconds) else { return [] }
            return [.log(.gpsEpochIgnored(fix, expected: time.utc(for: received), offBy: offBy, ignored: count, rejected: time.rejectedEpochs))]
        case .untimed:
            // No position or no date to trust: dated by the reference (a receiver without a fix reports its own clock).
            let ts = time.isTrusted ? time.utc(for: received) : fix.time ?? received.system
            return gpsMessage(fix, ts: ts) + gpsState(fix.hasPosition ? .ok : .noFix, ts: ts)
        }
    }

    /// A fix with a position whose time the reference accepted: the ride, `gps`, `position`, `ride` and the sun.
    private mutating func timedFix(_ fix: GPSFix, at received: ReceiveTime) -> [Effect] {
        guard let ts = fix.time, let latitude = fix.latitude, let longitude = fix.longitude else { return [] }
        var effects: [Effect] = []
        // One clock sample per GPS second (its first fix: at 10 Hz the others say nothing new about the clock).
        if settings.clockSamples, let sample = ClockSample(fix, at: received),
           ledger.due("clock_sample", at: ts.secondsSince1970.rounded(.down), every: 1, whenTimeWentBack: true) {
            effects.append(.clockSample(sample))
        }
        effects += logged(ride.fix(fix, at: ts, now: received.monotonicSeconds)) + gpsMessage(fix, ts: ts) + gpsState(.ok, ts: ts)
        effects += live.fix(fix, at: ts, moving: ride.summary.isMoving).map { .publish($0) }
        if ride.standsAtHome(fix, at: ts) { effects += endRide(at: ts) }
        if ledger.due(Topic.ride.name, at: ts.secondsSince1970, every: settings.rideSummaryInterval) { effects.append(.publish(rideSummary(ts: ts))) }
        return effects + sunEffects(latitude: latitude, longitude: longitude, now: ts)
    }

    private mutating func gpsMessage(_ fix: GPSFix, ts: Timestamp) -> [Effect] {
        guard ledger.admit(Topic.gps.name, at: ts, interval: settings.gpsMinimumInterval) else { return [] }
        let summary = ride.summary
        let hidden = settings.privacyZones.hides(fix)
        return publish(Topic.gps.name) { seq, _ in Payloads.gps(fix, ride: summary, positionHidden: hidden, ts: ts, seq: seq) }
    }

    /// A sensor's measurement: to the ride (zones, totals, its points) where the core has a model of it, and out
    /// on its kind's topic; a kind without a model, published as it is.
    private mutating func measured(_ sensor: SensorRef, _ measurement: SensorMeasurement, at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        switch measurement {
        case .heartRate(let m):
            status.update(contact: m.sensorContact)
            var (effects, shownZone): ([Effect], Int?) = ([], nil)
            if m.sensorContact != .notDetected, m.beatsPerMinute > 0 {
                let (zone, log) = ride.heartRate(m.beatsPerMinute, at: ts, received: at, points: sensorPoints)
                (shownZone, effects) = (zone, logged(log))
            }
            guard ledger.admit(Topic.heartRate.name, at: ts, interval: settings.heartRateMinimumInterval) else { return effects }
            return effects + publish(Topic.heartRate.name) {
                Payloads.heartRate(m, strap: sensor.id, zone: shownZone, ts: ts, seq: $0, clockTrusted: $1)
            }
        case .power(let m):
            let (reading, log) = ride.power(sensor, m, at: ts, received: at, points: sensorPoints, clockTrusted: time.isTrusted)
            return logged(log) + publish(Topic.sensor(sensor, .power).name) {
                Payloads.power(m, averages: (reading.average3s, reading.average10s), zone: reading.zone, cadence: reading.step.cadence,
                               wheelSpeed: reading.step.speed, ts: ts, seq: $0, clockTrusted: $1)
            }
        case .speedCadence(let m):
            let (step, log) = ride.speedCadence(sensor, m, at: ts, received: at, points: sensorPoints, clockTrusted: time.isTrusted)
            return logged(log) + publish(Topic.sensor(sensor, .speedCadence).name) {
                Payloads.speedCadence(cadence: step.cadence, wheelSpeed: step.speed, ts: ts, seq: $0, clockTrusted: $1)
            }
        case .readings(let values):
            return publish(Topic.sensorReadings(sensor).name) { Payloads.sensorReading(values, kind: sensor.kind, ts: ts, seq: $0, clockTrusted: $1) }
        }
    }

    /// Where the sensors' points stand: on GPS time (trusted), or with the GPS off on the system clock; with a GPS
    /// but no fix yet they wait for the first fix to date them.
    private var sensorPoints: LiveRide.SensorPoints {
        LiveRide.SensorPoints(positionFix: status.gps == .ok, hold: !time.isTrusted && settings.gpsEnabled)
    }

    /// A sensor's name, battery and what it measures: its retained `info`, the ride log's device, and Home
    /// Assistant's entities for it (again when it turns out to measure more).
    private mutating func sensorDetails(_ sensor: SensorRef, _ details: SensorDetails, at: ReceiveTime) -> [Effect] {
        let info = Publication(topic: .sensor(sensor, .info), payload: Payloads.sensorInfo(sensor, details, ts: time.utc(for: at)), retain: true)
        var effects: [Effect] = [.publish(info), .record(.device(RideDevice(sensor, details)))]
        let name = details.name ?? HomeAssistantDiscovery.defaultName(sensor)
        if let ha = settings.homeAssistant, status.announce(sensor, name: name, measures: details.measures) {
            effects += [.publish(ha.deviceConfig(sensors: status.announcedSensors)), .rememberAnnouncedSensors(status.announcedSensors)]
        }
        return effects
    }

    /// The ride log's entries as effects, each lap among them also announced on `lap`.
    private mutating func logged(_ entries: [RideLogEntry]) -> [Effect] {
        entries.flatMap { entry -> [Effect] in
            guard case .lap(let mark) = entry else { return [.record(entry)] }
            let seq = ledger.next(Topic.lap.name)
            let payload = Payloads.lap(mark, number: ride.laps, split: ride.endLap(at: mark.time), rideDistance: ride.summary.distanceMeters,
                                       seq: seq, clockTrusted: time.isTrusted)
            return [.record(entry), .publish(Publication(topic: .lap, payload: payload, sequence: seq))]
        }
    }

    /// The rider ended the ride (a long press): its final summary (retained), its end in the ride log, and the
    /// live totals start again for the next one.
    private mutating func endRide(at ts: Timestamp) -> [Effect] {
        [.publish(rideSummary(ts: ts, final: true))] + ride.end(at: ts).map { .record($0) }
    }
    /// The sun, retained, when `SunSchedule` says it is due; the position, when it is to be remembered.
    private mutating func sunEffects(latitude: Double, longitude: Double, now: Timestamp, force: Bool = false) -> [Effect] {
        guard settings.sunEnabled, let (report, remember) = sun.report(latitude: latitude, longitude: longitude, now: now, force: force) else {
            return []
        }
        let seq = ledger.next(Topic.sun.name)
        let payload = report.payload(ts: now, seq: seq, clockTrusted: time.isTrusted,
                                     positionHidden: settings.privacyZones.hides(latitude: latitude, longitude: longitude))
        return [.publish(Publication(topic: .sun, payload: payload, retain: true, sequence: seq))]
            + (remember ? [.rememberPosition(latitude: latitude, longitude: longitude)] : [])
    }

    /// `health` once a minute, carried by whatever event comes next (no timer of its own).
    private mutating func healthEffects(at receive: ReceiveTime, force: Bool = false) -> [Effect] {
        let now = receive.monotonicSeconds
        let uptime = status.uptime(at: now)
        guard ledger.due(Topic.health.name, at: now, every: settings.healthInterval, force: force) else { return [] }
        let payload = Payloads.health(ts: time.utc(for: receive), uptime: uptime, time: time, status: status, coalesced: ledger.coalescedTotal,
                                      lastGoodConfig: settings.runsLastGoodConfig)
        return [.publish(Publication(topic: .health, payload: payload, retain: true))]
    }

    private mutating func sensorState(_ sensor: SensorRef, _ state: SensorState, reason: String?, ts: Timestamp) -> [Effect] {
        guard let changed = status.update(sensor, to: state, reason: reason) else { return [] }
        let reason = changed.lastReason.map { [("last_reason", $0)] } ?? []
        let payload = Payloads.deviceState(state.rawValue, ts: ts, extra: reason, reconnects: changed.losses)
        return [.publish(Publication(topic: .sensor(sensor, .state), payload: payload, retain: true))]
    }

    private mutating func gpsState(_ state: GPSDeviceState, ts: Timestamp) -> [Effect] {
        guard status.update(gps: state) else { return [] }
        return [.publish(Publication(topic: .gpsState, payload: Payloads.deviceState(state.rawValue, ts: ts), retain: true))]
    }
}
