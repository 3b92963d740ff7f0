/// Every cycling sensor's counters and power averages (by sensor id), and the power zone shown: it follows the
/// 3 s average, since single readings swing by a hundred watts with every pedal stroke.
struct CyclingSensors: Sendable {
    struct PowerReading {
        var step: CyclingSensorState.Step
        var average3s: Double?
        var average10s: Double?
        /// The power zone shown now (nil without an FTP).
        var zone: Int?
    }

    private var states: [String: CyclingSensorState] = [:]
    private(set) var powerZone: ZoneTracker?

    init(powerZone: ZoneTracker?) {
        self.powerZone = powerZone
    }

    mutating func power(_ sensor: SensorRef, _ m: CyclingPowerMeasurement, now: Double, at ts: Timestamp) -> PowerReading {
        var state = states[sensor.id] ?? CyclingSensorState()
        state.power.add(watts: Double(m.powerWatts), at: now)
        let step = state.update(wheel: m.wheel, crank: m.crank, at: now, circumferenceMillimetres: sensor.wheelMillimetres)
        let reading = PowerReading(step: step, average3s: state.power.average(over: 3, at: now), average10s: state.power.average(over: 10, at: now))
        states[sensor.id] = state
        var shown = reading
        if powerZone != nil { shown.zone = powerZone?.update(value: Int((reading.average3s ?? Double(m.powerWatts)).rounded()), at: ts) }
        return shown
    }

    mutating func speedCadence(_ sensor: SensorRef, _ m: CyclingSpeedCadenceMeasurement, now: Double) -> CyclingSensorState.Step {
        var state = states[sensor.id] ?? CyclingSensorState()
        let step = state.update(wheel: m.wheel, crank: m.crank, at: now, circumferenceMillimetres: sensor.wheelMillimetres)
        states[sensor.id] = state
        return step
    }
}
