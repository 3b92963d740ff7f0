import RidegateCore

/// What a simulated sensor sends each ride second, from the ride's speed and grade.
protocol SimulatedSignal: Sendable {
    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])?
}

/// A strap: heart rate following the effort with the heart's lag (or as a recording says it), with RR interval
/// and energy expended.
struct HeartRateSignal: SimulatedSignal {
    var model = EffortModel()
    private var heartRate: Double
    private var energy = 0.0

    init(model: EffortModel = EffortModel()) {
        self.model = model
        heartRate = model.restingHeartRate + 20
    }

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])? {
        if sample?.recorded == true, sample?.heartRate == nil { return nil }
        if let recorded = sample?.heartRate {
            heartRate = Double(recorded)
        } else if let sample {
            let watts = model.watts(speed: sample.speed, grade: sample.grade)
            heartRate = model.respond(current: heartRate, target: model.steadyStateHeartRate(watts: watts), dt: dt)
            energy += watts * dt / 1000 / 0.24 // kJ of metabolic energy at ~24 % efficiency
        }
        let rr = UInt16(clamping: Int((60.0 / heartRate * 1024).rounded()))
        let measurement = HeartRateMeasurement(beatsPerMinute: Int(heartRate.rounded()), sensorContact: .detected,
                                               energyExpendedKilojoules: Int(energy), rrIntervalsRaw: [rr])
        return (.heartRateMeasurement, measurement.encoded)
    }
}

/// A crank power meter with wheel data: power from the effort model, cadence rising with effort (none
/// while coasting) — or the power and cadence a recording says —, crank and wheel revolutions with their event
/// times as a real meter counts them.
struct PowerSignal: SimulatedSignal {
    var model = EffortModel()
    var wheelMillimetres = SensorRef.defaultWheelMillimetres
    /// Whether it counts wheel revolutions too (a recorded ride's speed comes from its own sensor, if any).
    var sendsWheel = true
    private var elapsed = 0.0
    private var crank = (revolutions: 0.0, lastEvent: 0.0)
    private var wheel = (revolutions: 0.0, lastEvent: 0.0)

    init(sendsWheel: Bool = true) {
        self.sendsWheel = sendsWheel
    }

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])? {
        elapsed += dt
        if sample?.recorded == true, sample?.power == nil { return nil }
        let watts = sample?.power.map(Double.init) ?? sample.map { model.watts(speed: $0.speed, grade: $0.grade) } ?? 0
        let modelCadence = watts < 15 ? 0 : min(105, 70 + 30 * watts / model.thresholdWatts)
        let cadence = sample?.power != nil ? Double(sample?.cadence ?? 0) : modelCadence // rpm
        crank = Self.advance(crank, perSecond: cadence / 60, dt: dt, now: elapsed)
        wheel = Self.advance(wheel, perSecond: (sample?.speed ?? 0) / (wheelMillimetres / 1000), dt: dt, now: elapsed)
        let measurement = CyclingPowerMeasurement(
            powerWatts: Int(watts.rounded()),
            wheel: !sendsWheel ? nil : RevolutionData(revolutions: UInt32(truncatingIfNeeded: Int(wheel.revolutions)),
                                                      eventTime: UInt16(truncatingIfNeeded: Int(wheel.lastEvent * 2048)), ticksPerSecond: 2048, counterBits: 32),
            crank: RevolutionData(revolutions: UInt32(truncatingIfNeeded: Int(crank.revolutions)),
                                  eventTime: UInt16(truncatingIfNeeded: Int(crank.lastEvent * 1024)), ticksPerSecond: 1024, counterBits: 16))
        return (.cyclingPowerMeasurement, measurement.encoded)
    }

    /// Counts whole revolutions; the event time is when the last whole one ended.
    static func advance(_ counter: (revolutions: Double, lastEvent: Double), perSecond rate: Double, dt: Double,
                                now: Double) -> (revolutions: Double, lastEvent: Double) {
        guard rate > 0 else { return counter }
        let before = counter.revolutions.rounded(.down)
        let total = counter.revolutions + rate * dt
        let whole = total.rounded(.down)
        guard whole > before else { return (total, counter.lastEvent) }
        return (total, now - (total - whole) / rate)
    }
}

/// A speed/cadence sensor (CSC): wheel revolutions from a recording's speed, crank revolutions from its cadence.
struct SpeedCadenceSignal: SimulatedSignal {
    var wheelMillimetres = SensorRef.defaultWheelMillimetres
    private var elapsed = 0.0
    private var crank = (revolutions: 0.0, lastEvent: 0.0)
    private var wheel = (revolutions: 0.0, lastEvent: 0.0)

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])? {
        elapsed += dt
        if sample?.recorded == true, sample?.speedRecorded != true { return nil }
        wheel = PowerSignal.advance(wheel, perSecond: (sample?.speed ?? 0) / (wheelMillimetres / 1000), dt: dt, now: elapsed)
        crank = PowerSignal.advance(crank, perSecond: Double(sample?.cadence ?? 0) / 60, dt: dt, now: elapsed)
        let measurement = CyclingSpeedCadenceMeasurement(
            wheel: RevolutionData(revolutions: UInt32(truncatingIfNeeded: Int(wheel.revolutions)),
                                  eventTime: UInt16(truncatingIfNeeded: Int(wheel.lastEvent * 1024)), ticksPerSecond: 1024, counterBits: 32),
            crank: RevolutionData(revolutions: UInt32(truncatingIfNeeded: Int(crank.revolutions)),
                                  eventTime: UInt16(truncatingIfNeeded: Int(crank.lastEvent * 1024)), ticksPerSecond: 1024, counterBits: 16))
        return (.cscMeasurement, measurement.encoded)
    }
}
