import RidegateCore
import RidegateLinux

/// The demo's heart-rate strap: follows the ride's effort with physiological lag and sends real 0x2A37
/// payloads (heart rate, sensor contact, RR intervals) through the real decoder, once per ride second.
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
        emit(.strapState(strap: strapID, .connected, at: clock.now()))
        logger.info("simulated strap connected", [("strap.id", strapID)])
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
            let bpm = Int(heartRate.rounded())
            let rr = UInt16(clamping: Int((60.0 / heartRate * 1024).rounded()))
            let measurement = HeartRateMeasurement(beatsPerMinute: bpm, sensorContact: .detected,
                                                   energyExpendedKilojoules: Int(energy), rrIntervalsRaw: [rr])
            emit(HeartRateNotification.event(strap: strapID, value: measurement.encoded, at: clock.now()))
            offset += interval
            try? await Task.sleep(nanoseconds: UInt64(interval / speed * 1e9))
        }
    }
}
