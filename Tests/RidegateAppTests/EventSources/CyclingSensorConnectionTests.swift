import Foundation
import RidegateApp
import RidegateCore
import RidegateDemo
import RidegateLinux
import RidegateTestSupport
import Testing

/// Cycling sensors through the real ATT client and sensor session, against simulated peripherals speaking ATT
/// PDUs over a socketpair: a speed/cadence sensor, a power meter, and a power meter that also exposes CSC
/// (one device, one connection, both measurements).
@Suite struct CyclingSensorConnectionTests {
    /// Connects a session to a peripheral with these services; returns them and the event log.
    func session(_ services: [SensorProfile], as kind: SensorProfile = .power,
                 manufacturer: String? = nil, model: String? = nil) async throws
        -> (SimulatedSensorPeripheral, EventLog, Task<ATTClientError, Never>, Task<Void, Never>) {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "cycling", loop: loop)
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, behaviour: .init(
            name: "Sensor", services: services, manufacturer: manufacturer, model: model), loop: loop)
        let log = EventLog([])
        let serving = Task(executorPreference: loop) { await peripheral.run() }
        let connection = SensorConnection(
            sensor: SensorRef(kind: kind, id: "c1"), bearer: link.client, clock: SystemClock(), logger: CapturingLogHandler().logger())
        let running = Task(executorPreference: loop) { await connection.run(emit: log.append) }
        _ = await log.wait(timeout: 10) { $0.contains { if case .sensorDetails = $0 { true } else { false } } }
        return (peripheral, log, running, serving)
    }

    func csc(_ events: [SourceEvent]) -> [CyclingSpeedCadenceMeasurement] {
        events.compactMap { if case .sensorMeasurement(_, .speedCadence(let m), _) = $0 { m } else { nil } }
    }

    func power(_ events: [SourceEvent]) -> [CyclingPowerMeasurement] {
        events.compactMap { if case .sensorMeasurement(_, .power(let m), _) = $0 { m } else { nil } }
    }

    @Test("A speed and cadence sensor: subscribed to 0x2A5B, every value decoded, a malformed one reported")
    func speedCadenceSensor() async throws {
        let (peripheral, log, running, serving) = try await session([.speedCadence], as: .speedCadence)
        #expect(peripheral.subscribed(.cscMeasurement) && !peripheral.subscribed(.heartRateMeasurement))
        let value = CyclingSpeedCadenceMeasurement(wheel: RevolutionData(revolutions: 3, eventTime: 1638, ticksPerSecond: 1024, counterBits: 32),
                                                   crank: RevolutionData(revolutions: 1, eventTime: 683, ticksPerSecond: 1024, counterBits: 16))
        peripheral.notify(.cscMeasurement, value.encoded)
        peripheral.notify(.cscMeasurement, [0x01, 0x05]) // truncated
        let events = await log.wait(timeout: 10) {
            self.csc($0).count >= 1 && $0.contains { if case .sensorUndecodable = $0 { true } else { false } }
        }
        #expect(csc(events) == [value])
        let details = events.compactMap { if case .sensorDetails(_, let d, _) = $0 { d } else { nil } }.first
        #expect(details?.measures == [.cadence, .wheelSpeed] && details?.sensorLocation == "right_crank")
        #expect(events.contains { if case .sensorUndecodable(_, let e, _) = $0 { e.contains("ends before a field its flags announce") } else { false } })
        peripheral.disconnect()
        #expect(await running.value == .disconnected)
        serving.cancel()
    }

    @Test("A power meter: subscribed to 0x2A63, power with crank data decoded")
    func powerMeter() async throws {
        let (peripheral, log, running, serving) = try await session([.power], manufacturer: "4iiii Innovations", model: "Precision 3")
        #expect(peripheral.subscribed(.cyclingPowerMeasurement))
        let details = log.current.compactMap { if case .sensorDetails(_, let d, _) = $0 { d } else { nil } }.first
        // Device Information read (the model's NUL padding trimmed), location and features from the power service.
        #expect(details?.manufacturer == "4iiii Innovations" && details?.model == "Precision 3")
        #expect(details?.measures == [.power, .cadence, .wheelSpeed] && details?.sensorLocation == "left_crank")
        let value = CyclingPowerMeasurement(
            powerWatts: 250, crank: RevolutionData(revolutions: 7, eventTime: 4096, ticksPerSecond: 1024, counterBits: 16))
        peripheral.notify(.cyclingPowerMeasurement, value.encoded)
        let events = await log.wait(timeout: 10) { self.power($0).count >= 1 }
        #expect(power(events).first?.powerWatts == 250 && power(events).first?.crank?.revolutions == 7)
        peripheral.disconnect()
        _ = await running.value
        serving.cancel()
    }

    @Test("A power meter that also exposes CSC: one connection, both measurements, each to its decoder")
    func combinedDevice() async throws {
        let (peripheral, log, running, serving) = try await session([.power, .speedCadence])
        #expect(peripheral.subscribed(.cyclingPowerMeasurement) && peripheral.subscribed(.cscMeasurement))
        peripheral.notify(.cyclingPowerMeasurement, CyclingPowerMeasurement(powerWatts: 180).encoded)
        peripheral.notify(
            .cscMeasurement,
            CyclingSpeedCadenceMeasurement(crank: RevolutionData(revolutions: 2, eventTime: 100, ticksPerSecond: 1024, counterBits: 16)).encoded)
        let events = await log.wait(timeout: 10) { self.power($0).count >= 1 && self.csc($0).count >= 1 }
        #expect(power(events).map(\.powerWatts) == [180])
        #expect(csc(events).first?.crank?.revolutions == 2)
        peripheral.disconnect()
        _ = await running.value
        serving.cancel()
    }

    @Test("A device with none of the sensor services is refused with what it lacks")
    func noSensorService() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "none", loop: loop)
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, behaviour: .init(services: []), loop: loop)
        let serving = Task(executorPreference: loop) { await peripheral.run() }
        let connection = SensorConnection(sensor: .strap("x"), bearer: link.client, clock: SystemClock(), logger: CapturingLogHandler().logger())
        let reason = await connection.run(emit: { _ in })
        #expect(reason.description.contains("none of the services ridegate reads: heart rate (0x180D), speed/cadence (0x1816), power (0x1818)"))
        serving.cancel()
    }
}
