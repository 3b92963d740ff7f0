import RidegateApp
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
    /// The ride's second 0, shared with the replayed receiver and the other sensors (a recording's waits for them all).
    let start: RideSchedule
    /// Whether the first reading waits for the receiver's first fix to be read: a capture's first epoch is
    /// already a fix, and a reading before it would be dated before the ride's first fix (a recording sends two
    /// searching epochs first). Later ticks keep the shared schedule, due with the receiver's epochs.
    let afterFirstFix: Bool
    /// When the ride is over (the receiver's last fix read); nil: at the end of the profile.
    var end: RideEnd?
    let clock: SystemClock
    let logger: Logger
    let loop: EventLoop
    var signal: Signal

    func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        emit(.sensorState(sensor, .connecting, at: clock.now()))
        let link: (client: ATTBearer, peripheral: FileDescriptor)
        do {
            link = try ATTBearer.pair(label: "demo-\(name)", loop: loop)
        } catch {
            logger.error("cannot create the simulated sensor's link", [("sensor.id", sensor.id), ("error", "\(error)")])
            return
        }
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, behaviour: behaviour, loop: loop)
        let connection = SensorConnection(sensor: sensor, bearer: link.client, clock: clock, logger: logger)
        let sensor = sensor, clock = clock, logger = logger, start = start
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await peripheral.run() }
            group.addTask {
                let reason = await connection.run { event in
                    if case .sensorState(let sensor, .connected, _, _) = event { start.connected(sensor.id) }
                    emit(event)
                }
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
        start.joins(sensor.id)
        defer { start.leaves(sensor.id) }
        let origin = await start.origin()
        // Half a ride second, and at least 50 ms however fast the ride: the receiver's first fix is read by then.
        let firstDelay = afterFirstFix ? max(0.5 / speed, 0.05) : 0
        await loop.sleep(seconds: max(0, start.due(0, speed: speed, origin: origin) + firstDelay - SystemClock.monotonicSeconds()))
        // Past the profile's end, its last second holds until the receiver's last fix has been read.
        while !Task.isCancelled, offset <= profile.duration || end?.isOver == false {
            let sample = profile.sample(at: min(offset, profile.duration))
            // A recording's gaps (its head unit paused) are silence, as the sensors were then.
            if sample != nil || profile.holdsFor == nil, let (characteristic, value) = signal.next(sample, dt: interval) {
                peripheral.notify(characteristic, value)
            }
            offset += interval
            await start.waits(sensor.id, for: offset, speed: speed, origin: origin)
        }
    }
}
