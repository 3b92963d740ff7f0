import RidegateCore
import RidegateLinux

/// One of the demo's BLE sensors: a simulated GATT peripheral on one end of a SOCK_SEQPACKET pair and the
/// real ATT client and sensor session on the other. Once per ride second its signal (heart rate, power)
/// turns the ride's effort into a real measurement notification.
struct SimulatedSensor<Signal: SimulatedSignal>: EventSource {
    let name: String
    let sensor: SensorRef
    let behaviour: SimulatedSensorPeripheral.Behaviour
    let profile: RideProfile
    let speed: Double
    let clock: SystemClock
    let logger: Logger
    var signal: Signal

    func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        emit(.sensorState(sensor, .connecting, at: clock.now()))
        let link: (client: ATTBearer, peripheral: FileDescriptor)
        do {
            link = try ATTBearer.pair(label: "demo-\(name)")
        } catch {
            logger.error("cannot create the simulated sensor's link", [("sensor.id", sensor.id), ("error", "\(error)")])
            return
        }
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, behaviour: behaviour)
        let connection = SensorConnection(sensor: sensor, bearer: link.client, clock: clock, logger: logger)
        let sensor = sensor, clock = clock, logger = logger
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await peripheral.run() }
            group.addTask {
                let reason = await connection.run(emit: emit)
                guard !Task.isCancelled else { return } // shutting down, not lost
                logger.info("sensor link ended", [("sensor.id", sensor.id), ("reason", reason.description)])
                emit(.sensorState(sensor, .lost, at: clock.now()))
            }
            group.addTask { await tick(peripheral) }
            // The ride's end (or shutdown) ends the signal; then the sensor goes quiet.
            await group.next()
            group.cancelAll()
        }
    }

    private func tick(_ peripheral: SimulatedSensorPeripheral) async {
        var signal = signal
        var offset = 0.0
        let interval = 1.0
        while !Task.isCancelled, offset <= profile.duration {
            let (characteristic, value) = signal.next(profile.sample(at: offset), dt: interval)
            peripheral.notify(characteristic, value)
            offset += interval
            await EventLoop.sleep(seconds: interval / speed)
        }
    }
}

/// What a simulated sensor sends each ride second, from the ride's speed and grade.
protocol SimulatedSignal: Sendable {
    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8])
}

/// A strap: heart rate following the effort with the heart's lag, with RR interval and energy expended.
struct HeartRateSignal: SimulatedSignal {
    var model = EffortModel()
    private var heartRate: Double
    private var energy = 0.0

    init(model: EffortModel = EffortModel()) {
        self.model = model
        heartRate = model.restingHeartRate + 20
    }

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8]) {
        if let sample {
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
/// while coasting), crank and wheel revolutions with their event times as a real meter counts them.
struct PowerSignal: SimulatedSignal {
    var model = EffortModel()
    var wheelMillimetres = SensorRef.defaultWheelMillimetres
    private var elapsed = 0.0
    private var crank = (revolutions: 0.0, lastEvent: 0.0)
    private var wheel = (revolutions: 0.0, lastEvent: 0.0)

    mutating func next(_ sample: RideProfile.Sample?, dt: Double) -> (BluetoothUUID, [UInt8]) {
        elapsed += dt
        let watts = sample.map { model.watts(speed: $0.speed, grade: $0.grade) } ?? 0
        let cadence = watts < 15 ? 0 : min(105, 70 + 30 * watts / model.thresholdWatts) // rpm
        crank = Self.advance(crank, perSecond: cadence / 60, dt: dt, now: elapsed)
        wheel = Self.advance(wheel, perSecond: (sample?.speed ?? 0) / (wheelMillimetres / 1000), dt: dt, now: elapsed)
        let measurement = CyclingPowerMeasurement(
            powerWatts: Int(watts.rounded()),
            wheel: RevolutionData(revolutions: UInt32(truncatingIfNeeded: Int(wheel.revolutions)),
                                  eventTime: UInt16(truncatingIfNeeded: Int(wheel.lastEvent * 2048)), ticksPerSecond: 2048, counterBits: 32),
            crank: RevolutionData(revolutions: UInt32(truncatingIfNeeded: Int(crank.revolutions)),
                                  eventTime: UInt16(truncatingIfNeeded: Int(crank.lastEvent * 1024)), ticksPerSecond: 1024, counterBits: 16))
        return (.cyclingPowerMeasurement, measurement.encoded)
    }

    /// Counts whole revolutions; the event time is when the last whole one ended.
    private static func advance(_ counter: (revolutions: Double, lastEvent: Double), perSecond rate: Double, dt: Double,
                                now: Double) -> (revolutions: Double, lastEvent: Double) {
        guard rate > 0 else { return counter }
        let before = counter.revolutions.rounded(.down)
        let total = counter.revolutions + rate * dt
        let whole = total.rounded(.down)
        guard whole > before else { return (total, counter.lastEvent) }
        return (total, now - (total - whole) / rate)
    }
}
