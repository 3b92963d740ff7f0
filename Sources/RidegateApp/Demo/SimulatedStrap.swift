import RidegateCore
import RidegateLinux

/// The demo's heart-rate strap: a simulated GATT peripheral on one end of a SOCK_SEQPACKET pair and the
/// real ATT client and strap session on the other. Its heart rate follows the ride's effort with
/// physiological lag, sent as real 0x2A37 notifications once per ride second.
struct SimulatedStrap: EventSource {
    let name = "strap"
    let strapID: String
    let profile: RideProfile
    let speed: Double
    let clock: SystemClock
    let logger: Logger
    var model = EffortModel()

    func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        emit(.strapState(strap: strapID, .connecting, at: clock.now()))
        let link: (client: ATTBearer, peripheral: FileDescriptor)
        do {
            link = try ATTBearer.pair(label: "demo-strap")
        } catch {
            logger.error("cannot create the simulated strap's link", [("error", "\(error)")])
            return
        }
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral)
        let connection = SensorConnection(strapID: strapID, bearer: link.client, clock: clock, logger: logger)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await peripheral.run() }
            group.addTask {
                let reason = await connection.run(emit: emit)
                guard !Task.isCancelled else { return } // shutting down, not lost
                logger.info("strap link ended", [("strap.id", strapID), ("reason", reason.description)])
                emit(.strapState(strap: strapID, .lost, at: clock.now()))
            }
            group.addTask { await beat(peripheral) }
            // The ride's end (or shutdown) ends the heartbeat; then the strap goes quiet.
            await group.next()
            group.cancelAll()
        }
    }

    private func beat(_ peripheral: SimulatedSensorPeripheral) async {
        var heartRate = model.restingHeartRate + 20
        var energy = 0.0
        var offset = 0.0
        let interval = 1.0
        while !Task.isCancelled, offset <= profile.duration {
            if let sample = profile.sample(at: offset) {
                let watts = model.watts(speed: sample.speed, grade: sample.grade)
                heartRate = model.respond(current: heartRate, target: model.steadyStateHeartRate(watts: watts), dt: interval)
                energy += watts * interval / 1000 / 0.24 // kJ of metabolic energy at ~24 % efficiency
            }
            let rr = UInt16(clamping: Int((60.0 / heartRate * 1024).rounded()))
            let measurement = HeartRateMeasurement(beatsPerMinute: Int(heartRate.rounded()), sensorContact: .detected,
                                                   energyExpendedKilojoules: Int(energy), rrIntervalsRaw: [rr])
            peripheral.notifyHeartRate(measurement.encoded)
            offset += interval
            try? await Task.sleep(nanoseconds: UInt64(interval / speed * 1e9))
        }
    }
}
