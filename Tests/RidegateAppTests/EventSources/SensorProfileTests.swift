import RidegateApp
import RidegateCore
import RidegateDemo
import RidegateLinux
import RidegateTestSupport
import Testing

/// A sensor kind is one profile and its decoder: this suite adds one that ridegate does not ship — a running
/// footpod (Running Speed and Cadence, 0x1814, measurement 0x2A53) — and nothing else, and follows it from a
/// simulated peripheral through the real ATT client and sensor session into the core, its topic and its Home
/// Assistant entities.
@Suite struct SensorProfileTests {
    /// RSC Measurement: flags, speed in 1/256 m/s, cadence in steps a minute (the optional fields left out).
    static func decodeFootpod(_ sensor: SensorRef, _ value: [UInt8], _ time: ReceiveTime) -> SourceEvent {
        guard value.count >= 4 else { return .sensorUndecodable(sensor, "\(value.count) bytes, 4 at least", at: time) }
        let speed = Double(UInt16(value[1]) | UInt16(value[2]) << 8) / 256
        return .sensorMeasurement(sensor, .readings(["speed_mps": speed, "cadence_spm": Double(value[3])]), at: time)
    }

    /// The one entry.
    static let footpod = SensorProfile(
        rawValue: "running", service: .short(0x1814), measurement: .short(0x2A53), measurementName: "RSC Measurement (0x2A53)",
        measures: "running speed/cadence", plural: "footpods", wakeHint: "take a few steps", deviceName: "Footpod",
        memoryFile: "footpod", readings: [SensorProfile.Reading(key: "speed_mps", name: "Running speed", unit: "m/s", deviceClass: "speed", precision: 2),
                                          SensorProfile.Reading(key: "cadence_spm", name: "Steps", unit: "steps/min", precision: 0)],
        simulatedCharacteristics: [SensorProfile.SimulatedCharacteristic(.short(0x2A54), [0x00, 0x00])], // RSC Feature
        decode: decodeFootpod)

    @Test("A kind added by its profile alone: subscribed, decoded, published on its own topic, announced to Home Assistant")
    func footpodEndToEnd() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "footpod", loop: loop)
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, behaviour: .init(name: "Stryd", services: [Self.footpod]), loop: loop)
        let serving = Task(executorPreference: loop) { await peripheral.run() }
        let sensor = SensorRef(kind: Self.footpod, id: "fp1")
        let log = EventLog([])
        let connection = SensorConnection(sensor: sensor, bearer: link.client, clock: SystemClock(), logger: CapturingLogHandler().logger())
        let running = Task(executorPreference: loop) { await connection.run(emit: log.append) }
        _ = await log.wait(timeout: 10) { $0.contains { if case .sensorDetails = $0 { true } else { false } } }
        #expect(peripheral.subscribed(.short(0x2A53)))
        peripheral.notify(.short(0x2A53), [0x00, 0x80, 0x02, 160]) // 2.5 m/s, 160 steps a minute
        peripheral.notify(.short(0x2A53), [0x00, 0x80])             // truncated
        let events = await log.wait(timeout: 10) { events in
            events.contains { if case .sensorMeasurement(_, .readings, _) = $0 { true } else { false } }
                && events.contains { if case .sensorUndecodable = $0 { true } else { false } }
        }
        let values = events.compactMap { if case .sensorMeasurement(_, .readings(let values), _) = $0 { values } else { nil } }
        #expect(values == [["speed_mps": 2.5, "cadence_spm": 160]])
        peripheral.disconnect()
        #expect(await running.value == .disconnected)
        serving.cancel()

        // The core, with Home Assistant on: the reading on sensor/<id>/<kind>, an entity for each of its values.
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]))
        settings.homeAssistant = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/bike", deviceID: "bike", version: "1")
        var core = GatewayCore(settings: settings)
        let published: [Publication] = events.flatMap { core.handle($0) }.compactMap { effect -> Publication? in
            if case .publish(let p) = effect { p } else { nil }
        }
        let reading = try #require(published.first { $0.topic == "sensor/fp1/running" })
        #expect(reading.payload.contains("\"speed_mps\":2.5,") && reading.payload.contains("\"cadence_spm\":160"), "\(reading.payload)")
        let device = try #require(published.last { $0.topic == "homeassistant/device/bike/config" })
        let components = try #require(HomeAssistantSchema.components(ofDevice: device.payload))
        let speed = try #require(components["sensor_fp1_speed_mps"])
        #expect(speed["unit_of_measurement"] as? String == "m/s" && speed["state_topic"] as? String == "ridegate/bike/sensor/fp1/running", "\(speed)")
        #expect(speed["unique_id"] as? String == "ridegate_bike_sensor_fp1_speed_mps" && (speed["name"] as? String)?.hasPrefix("Stryd ") == true)
        #expect(components["sensor_fp1_cadence_spm"] != nil)
        #expect(!components.keys.contains { $0.hasPrefix("sensor_fp1_power") })
    }
}
