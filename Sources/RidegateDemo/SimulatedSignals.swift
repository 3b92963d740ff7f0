import Glibc
import RidegateApp
import RidegateCore

/// What a simulated sensor sends each ride second, from the ride's speed and grade.
protocol SimulatedSignal: Sendable {
    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])?
}

/// A strap: heart rate following the effort with the heart's lag (or as a recording says it), with RR interval
/// and energy expended.
struct HeartRateSignal: SimulatedSignal {
    private(set) var model = EffortModel()
    private var heartRate: Double
    private var energy = 0.0

    init(model: EffortModel = EffortModel()) {
        self.model = model
        heartRate = model.restingHeartRate + 20
    }

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])? {
        if sample?.recorded == true, sample?.heartRate == nil { return nil }
        let dt = SignalTime.step(dt)
        if let recorded = sample?.heartRate {
            heartRate = Double(recorded)
        } else if let sample {
            let watts = model.watts(speed: sample.speed, grade: sample.grade)
            heartRate = model.respond(current: heartRate, target: model.steadyStateHeartRate(watts: watts), dt: dt)
            if watts.isFinite { energy += watts * dt / 1000 / 0.24 } // kJ of metabolic energy at ~24 % efficiency
        }
        // Whatever the recording or the model gave (a strap reports 20–250 bpm): the RR interval divides by it.
        if !heartRate.isFinite { heartRate = model.restingHeartRate }
        let bpm = Int(rounding: heartRate, within: RecordedRide.heartRates) ?? RecordedRide.heartRates.lowerBound
        let measurement = HeartRateMeasurement(beatsPerMinute: bpm, sensorContact: .detected,
                                               energyExpendedKilojoules: Int(rounding: energy, within: 0...0xFFFF),
                                               rrIntervalsRaw: [UInt16(clamping: 61_440 / bpm)]) // 60 s × 1024 / bpm
        return (.heartRateMeasurement, measurement.encoded)
    }
}

/// The simulated sensors' clocks: a step that is not a finite, non-negative number of seconds is none.
enum SignalTime {
    static func step(_ dt: Double) -> Double { dt.isFinite && dt > 0 ? dt : 0 }

    /// Event times in a sensor's ticks (1/1024 or 1/2048 s), wrapping as its 16-bit counter does.
    static func ticks(_ seconds: Double, perSecond: Double) -> UInt16 {
        UInt16(truncatingIfNeeded: Int(rounding: (seconds * perSecond).rounded(.down), within: 0...Int.max) ?? 0)
    }

    /// Whole revolutions, wrapping as a 32-bit counter does.
    static func revolutions(_ count: Double) -> UInt32 {
        UInt32(truncatingIfNeeded: Int(rounding: count.rounded(.down), within: 0...Int.max) ?? 0)
    }
}

/// A crank power meter with wheel data: power from the effort model, cadence rising with effort (none
/// while coasting) — or the power and cadence a recording says —, crank and wheel revolutions with their event
/// times as a real meter counts them.
struct PowerSignal: SimulatedSignal {
    private(set) var model = EffortModel()
    private(set) var wheelMillimetres = SensorRef.defaultWheelMillimetres
    /// Whether it counts wheel revolutions too (a recorded ride's speed comes from its own sensor, if any).
    private(set) var sendsWheel = true
    private var elapsed = 0.0
    private var crank = (revolutions: 0.0, lastEvent: 0.0)
    private var wheel = (revolutions: 0.0, lastEvent: 0.0)
    /// The modelled power as the rider puts it out: following the model with a 3 s time constant. The model's
    /// grade comes from GPS altitude, whose noise swung its power by 200 W from one second to the next — no
    /// rider's, and a zone no LED could show.
    private var effort: Double?
    static let effortTimeConstant = 3.0

    init(sendsWheel: Bool = true) {
        self.sendsWheel = sendsWheel
    }

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])? {
        let dt = SignalTime.step(dt)
        elapsed += dt
        if sample?.recorded == true, sample?.power == nil { return nil }
        let watts: Double
        if let recorded = sample?.power {
            watts = Double(recorded)
        } else {
            let target = sample.map { model.watts(speed: $0.speed, grade: $0.grade) } ?? 0
            if target.isFinite { effort = effort.map { $0 + (target - $0) * (1 - exp(-dt / Self.effortTimeConstant)) } ?? target }
            watts = effort ?? 0
        }
        let power = Int(rounding: watts, within: RecordedRide.powers) ?? 0
        let modelCadence = power < 15 ? 0 : min(105, 70 + 30 * Double(power) / model.ftp)
        let cadence = sample?.power != nil ? Double(sample?.cadence ?? 0) : modelCadence // rpm
        crank = Self.advance(crank, perSecond: cadence / 60, dt: dt, now: elapsed)
        wheel = Self.advance(wheel, perSecond: (sample?.speed ?? 0) / (wheelMillimetres / 1000), dt: dt, now: elapsed)
        let measurement = CyclingPowerMeasurement(
            powerWatts: power,
            wheel: !sendsWheel ? nil : RevolutionData(revolutions: SignalTime.revolutions(wheel.revolutions),
                    eventTime: SignalTime.ticks(wheel.lastEvent, perSecond: 2048), ticksPerSecond: 2048, counterBits: 32),
            crank: RevolutionData(revolutions: SignalTime.revolutions(crank.revolutions),
                                  eventTime: SignalTime.ticks(crank.lastEvent, perSecond: 1024), ticksPerSecond: 1024, counterBits: 16))
        return (.cyclingPowerMeasurement, measurement.encoded)
    }

    /// Counts whole revolutions; the event time is when the last whole one ended.
    static func advance(_ counter: (revolutions: Double, lastEvent: Double), perSecond rate: Double, dt: Double,
                                now: Double) -> (revolutions: Double, lastEvent: Double) {
        // No wheel turns 100 times a second (700 km/h): a rate past it, or not a number, is none.
        guard rate > 0, rate < 100 else { return counter }
        let before = counter.revolutions.rounded(.down)
        let total = counter.revolutions + rate * dt
        let whole = total.rounded(.down)
        guard whole > before else { return (total, counter.lastEvent) }
        return (total, now - (total - whole) / rate)
    }
}

/// A speed/cadence sensor (CSC): wheel revolutions from a recording's speed, crank revolutions from its cadence.
struct SpeedCadenceSignal: SimulatedSignal {
    private(set) var wheelMillimetres = SensorRef.defaultWheelMillimetres
    private var elapsed = 0.0
    private var crank = (revolutions: 0.0, lastEvent: 0.0)
    private var wheel = (revolutions: 0.0, lastEvent: 0.0)

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])? {
        let dt = SignalTime.step(dt)
        elapsed += dt
        if sample?.recorded == true, sample?.speedRecorded != true { return nil }
        wheel = PowerSignal.advance(wheel, perSecond: (sample?.speed ?? 0) / (wheelMillimetres / 1000), dt: dt, now: elapsed)
        crank = PowerSignal.advance(crank, perSecond: Double(sample?.cadence ?? 0) / 60, dt: dt, now: elapsed)
        let measurement = CyclingSpeedCadenceMeasurement(
            wheel: RevolutionData(revolutions: SignalTime.revolutions(wheel.revolutions),
                                  eventTime: SignalTime.ticks(wheel.lastEvent, perSecond: 1024), ticksPerSecond: 1024, counterBits: 32),
            crank: RevolutionData(revolutions: SignalTime.revolutions(crank.revolutions),
                                  eventTime: SignalTime.ticks(crank.lastEvent, perSecond: 1024), ticksPerSecond: 1024, counterBits: 16))
        return (.cscMeasurement, measurement.encoded)
    }
}
