/// What the LED shows: a zone (heart rate or power), or a status that never looks like one.
extension GatewayCore {
    mutating func newLEDSignal(now: Double) -> LEDSignal? {
        var signal = currentLEDSignal()
        if let until = acknowledgeUntil {
            if now < until { signal = .acknowledged } else { acknowledgeUntil = nil }
        }
        guard signal != ledSignal else { return nil }
        ledSignal = signal
        return signal
    }

    func currentLEDSignal() -> LEDSignal {
        let signal = zoneOrStatus()
        // A ride that cannot be saved, then a configuration refused, outrank every other status; the zone still
        // wins (it is why the LED exists).
        guard !signal.isZone else { return signal }
        if stateStorage == .readOnly { return .stateReadOnly }
        return settings.runsLastGoodConfig ? .configRejected : signal
    }

    private func zoneOrStatus() -> LEDSignal {
        if settings.ledZones == .power, let tracker = powerZone, let z = tracker.zone,
           sensorStates.contains(where: { $0.key.kind == SensorProfile.power && $0.value == .connected }) || sensorStates.isEmpty {
            return sunsetWarning ? .zoneAtDusk(z, of: tracker.zones.count) : .zone(z, of: tracker.zones.count)
        }
        guard settings.heartRateEnabled else {
            if sunsetWarning { return .sunsetSoon }
            return gpsState == .ok ? .off : .noGPSFix
        }
        let straps = sensorStates.filter { $0.key.kind == SensorProfile.heartRate }
        let states = Set(straps.values)
        if states.contains(.connected) || (straps.isEmpty && zone.zone != nil) {
            if contact == .notDetected { return .noSensorContact }
            if let z = zone.zone { return sunsetWarning ? .zoneAtDusk(z, of: settings.zones.count) : .zone(z, of: settings.zones.count) }
            return .searchingForStrap
        }
        if states.contains(.lost) { return .strapLost }
        return .searchingForStrap
    }
}
