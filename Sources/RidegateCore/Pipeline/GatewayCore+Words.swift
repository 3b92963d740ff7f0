/// What the core says in the log of GPS time, what the LED reads of the gateway's state, and the readings' QoS:
/// built from the parts' values, kept out of the router.
extension LogRecord {
    static func gpsTimeStepped(by step: Double, fix: GPSFix, steps: Int) -> LogRecord {
        LogRecord(.warning, "the GPS time moved and stayed there; following it", [
            ("gps.step_s", String(Int(step.rounded()))), ("gps.time", fix.time?.iso8601 ?? "-"), ("gps.time_steps", String(steps)),
        ])
    }

    static func gpsEpochIgnored(_ fix: GPSFix, expected: Timestamp, offBy: Double, ignored: Int, rejected: Int) -> LogRecord {
        LogRecord(.warning, "a GPS epoch's time is off the established GPS time; the epoch is ignored", [
            ("gps.time", fix.time?.iso8601 ?? "-"), ("gps.expected", expected.iso8601), ("gps.off_by_s", String(Int(offBy.rounded()))),
            ("gps.ignored", String(ignored)), ("gps.time_rejected", String(rejected)),
        ])
    }
}

extension LEDChoice.Situation {
    /// The situation from the devices' states, the zones shown and the settings.
    init(_ settings: GatewayCore.Settings, status: GatewayStatus, ride: LiveRide, sunsetWarning: Bool) {
        self.init()
        if settings.ledZones == .power, let shown = ride.shownPowerZone { powerZone = LEDChoice.Zone(zone: shown.zone, of: shown.of) }
        powerMeterConnected = status.states(zonesOf: .power).contains(.connected)
        anySensorKnown = status.anySensorKnown
        heartRateEnabled = settings.heartRateEnabled
        heartRateZone = ride.shownHeartRateZone.map { LEDChoice.Zone(zone: $0.zone, of: $0.of) }
        straps = status.states(zonesOf: .heartRate)
        noSensorContact = status.contact == .notDetected
        gpsFix = status.gps == .ok
        self.sunsetWarning = sunsetWarning
        stateReadOnly = status.storage == .readOnly
        lastGoodConfig = settings.runsLastGoodConfig
    }
}

extension ClockSample {
    /// The system clock against a fix's time: fixes with a position and a sane date only (before a fix,
    /// receivers send their own unsynchronised clock).
    init?(_ fix: GPSFix, at receive: ReceiveTime) {
        guard fix.hasPosition, let gpsTime = fix.time, gpsTime.date.year >= 2020 else { return nil }
        self.init(systemTime: receive.system, offset: gpsTime - receive.system)
    }
}

extension RideDevice {
    init(_ sensor: SensorRef, _ details: SensorDetails) {
        self.init(sensorID: sensor.id, kind: sensor.kind, measures: details.measures, name: details.name, manufacturer: details.manufacturer,
                  model: details.model, serialNumber: details.serialNumber, batteryPercent: details.batteryPercent)
    }
}

extension [Effect] {
    /// Readings (not retained state, not absolute topics) go out at `mqtt.qos`.
    func withReadingQoS(_ qos: Int) -> [Effect] {
        guard qos != 1 else { return self }
        return map { effect in
            guard case .publish(var publication) = effect, !publication.retain, !publication.absolute else { return effect }
            publication.qos = qos
            return .publish(publication)
        }
    }
}
