import Foundation
import RidegateTestSupport
import Testing

/// What Home Assistant sees of the built binary, through a real mosquitto: every discovery config against
/// its documented schema, only enabled features announced, stale values, retained states after a stop, and
/// the demo kept out of the real gateway's namespace.
@Suite(.serialized) struct HomeAssistantTests {
    static let gatewayKeys = ["online", "heart_rate", "zone", "speed", "distance", "gps_state", "position", "riding", "moving_time",
                              "average_power", "work", "last_ride", "sunrise", "sunset", "civil_dusk", "time_to_sunset", "dark_soon",
                              "spool_depth", "ride_log_size"]
    /// What the sun-only gateway announces: its connection, the sun, its health.
    static let sunOnlyKeys = ["online", "sunrise", "sunset", "civil_dawn", "civil_dusk", "time_to_sunset", "dark_soon", "spool_depth",
                              "spool_dropped", "broker_connections", "sensor_reconnects", "gps_time_rejected", "ride_log_size", "clock_offset"]
    /// The demo: the gateway's 31 (no lap button, no auto-lap: no lap event), the strap's connection and battery, the
    /// power meter's connection, power, 3 s power, cadence, wheel speed and battery.
    static let demoConfigs = 39

    static func configs(_ messages: [MQTTSubscriber.Message]) -> [MQTTSubscriber.Message] {
        messages.filter { $0.topic.hasPrefix("homeassistant/") && $0.topic.hasSuffix("/config") }
    }

    static func schemaProblems(_ messages: [MQTTSubscriber.Message]) -> [String] {
        configs(messages).filter { !$0.payload.isEmpty }.flatMap { HomeAssistantSchema.problems(topic: $0.topic, payload: $0.payload) }
    }

    @Test("The demo: every config passes the schema; its own id; after SIGTERM nothing of it left retained on the broker")
    func demo() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "#")
        let demo = try ChildProcess(RidegateAppTestsPaths.executable,
                                    ["demo", "--broker", "127.0.0.1:\(broker.port)", "--speed", "20"], captureOutput: true)
        let messages = await sub.wait(timeout: TestTime.seconds(15)) { m in
            Set(Self.configs(m).filter { !$0.payload.isEmpty }.map(\.topic)).count == Self.demoConfigs
                && m.contains { $0.topic.hasSuffix("/position") } && m.contains { $0.topic.hasSuffix("/heart_rate") && $0.json["zone"] is Int }
                && m.contains { $0.topic.hasSuffix("/sensor/demo-power/power") && $0.json["zone"] is Int && $0.json["cadence_rpm"] is Double }
        }
        // Its own namespace: <host name>-demo, never the host name the real gateway uses.
        let status = try #require(messages.first { $0.topic.hasPrefix("ridegate/") && $0.topic.hasSuffix("/status") }?.topic)
        let base = String(status.dropLast("/status".count))
        let id = String(base.dropFirst("ridegate/".count))
        #expect(id.hasSuffix("-demo") && id.count > "-demo".count, "device id \(id)")

        let announced = Self.configs(messages).filter { !$0.payload.isEmpty }
        #expect(Set(announced.map(\.topic)).count == Self.demoConfigs, "\(Set(announced.map(\.topic)).sorted())")
        #expect(Self.schemaProblems(messages) == [])
        for key in Self.gatewayKeys {
            #expect(announced.contains { $0.topic.hasSuffix("/ridegate_\(id)_\(key)/config") }, "\(key) not announced")
        }
        #expect(announced.allSatisfy { !$0.payload.contains("\"object_id\"") })
        Self.expectEntityDetails(announced, id: id, base: base)

        // The tracker's topic carries a position or nothing: never a null one.
        let positions = messages.filter { $0.topic == "\(base)/position" }
        #expect(!positions.isEmpty)
        #expect(positions.allSatisfy { $0.json["latitude"] is Double && $0.json["longitude"] is Double && $0.json["gps_accuracy"] is Double })

        // Home Assistant's birth message brings the configs again.
        let trackerTopic = "homeassistant/device_tracker/ridegate_\(id)_position/config"
        let before = sub.messages.filter { $0.topic == trackerTopic }.count
        let birth = try ChildProcess(try Executables.find("mosquitto_pub", hint: "apt-get install mosquitto-clients").path,
                                     ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "homeassistant/status", "-m", "online"])
        _ = await birth.waitForExit(timeout: 5)
        let again = await sub.wait(timeout: TestTime.seconds(10)) { $0.filter { $0.topic == trackerTopic }.count > before }
        #expect(again.filter { $0.topic == trackerTopic }.count > before)

        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(5)).flatMap(ChildProcess.exitCode) == 0)
        // Nothing retained: no discovery config, no state, no ride summary, no position, no status. The
        // next demo starts from nothing (it used to show the previous ride's distance for a moment).
        let retained = try await MQTTSubscriber.retained(port: broker.port, topic: "#")
        #expect(retained.isEmpty, "left behind: \(retained.map(\.topic))")
        // What it cleared was there: the final ride summary and the stopped states were published before.
        let stopped = sub.messages.filter { $0.topic == "\(base)/gps/state" && $0.json["state"] as? String == "stopped" }
        #expect(!stopped.isEmpty)
        #expect(sub.messages.contains { $0.topic == "\(base)/ride" && $0.json["final"] as? Bool == true })
    }

    /// What the demo's entities are announced with: expiry, entity ids, units and device classes, topics.
    static func expectEntityDetails(_ announced: [MQTTSubscriber.Message], id: String, base: String) {
        let byKey = { (key: String) in announced.first { $0.topic.hasSuffix("/ridegate_\(id)_\(key)/config") }?.json ?? [:] }
        for key in ["heart_rate", "zone", "speed"] { #expect((byKey(key)["expire_after"] as? Int ?? 0) >= 15, "\(key) does not expire") }
        let slug = id.lowercased().replacingOccurrences(of: "-", with: "_")
        #expect(byKey("heart_rate")["default_entity_id"] as? String == "sensor.ridegate_\(slug)_heart_rate")
        #expect(byKey("position")["default_entity_id"] as? String == "device_tracker.ridegate_\(slug)_position")
        #expect(byKey("position")["json_attributes_topic"] as? String == "\(base)/position")
        let power = byKey("sensor_demo-power_power")
        #expect(power["device_class"] as? String == "power" && power["unit_of_measurement"] as? String == "W")
        #expect(power["state_topic"] as? String == "\(base)/sensor/demo-power/power")
        #expect((power["device"] as? [String: Any])?["via_device"] as? String == "ridegate_\(id)")
        #expect(byKey("sensor_demo-power_cadence")["unit_of_measurement"] as? String == "rpm")
        #expect(byKey("sensor_demo-power_wheel_speed")["device_class"] as? String == "speed")
        #expect(byKey("sensor_demo-power_wheel_speed")["unit_of_measurement"] as? String == "km/h")
        #expect(byKey("sensor_demo-power_connected")["device_class"] as? String == "connectivity")
        #expect(byKey("strap_demo-strap_connected")["state_topic"] as? String == "\(base)/strap/demo-strap/state")
        #expect(byKey("speed")["unit_of_measurement"] as? String == "km/h")
    }

    @Test("GPS and heart rate off: only the sun is announced, and what an earlier run announced is removed")
    func disabledFeatures() async throws {
        let broker = try await MosquittoBroker.start()
        let publish = try Executables.find("mosquitto_pub", hint: "apt-get install mosquitto-clients").path
        // What an earlier release (with object_id) left retained for this gateway.
        for (component, key) in [("sensor", "heart_rate"), ("device_tracker", "position")] {
            let old = #"{"name":"old","unique_id":"ridegate_solo_\#(key)","object_id":"ridegate_solo_\#(key)","state_topic":"ridegate/solo/x"}"#
            let pub = try ChildProcess(publish, ["-h", "127.0.0.1", "-p", String(broker.port), "-r",
                                                 "-t", "homeassistant/\(component)/ridegate_solo_\(key)/config", "-m", old])
            #expect(await pub.waitForExit(timeout: 5).flatMap(ChildProcess.exitCode) == 0)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-ha-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/ridegate.toml"
        try TestConfigs.quiet(deviceID: "solo", dir: dir, brokerPort: broker.port, to: config)

        // -R: only what this run publishes, not the stale configs above.
        let sub = try MQTTSubscriber(port: broker.port, topic: "#", extraArguments: ["-R"])
        let daemon = try ChildProcess(RidegateAppTestsPaths.executable, ["run", "--config", config], captureOutput: true)
        let messages = await sub.wait(timeout: TestTime.seconds(10)) { m in
            Self.configs(m).filter { $0.payload.isEmpty }.count >= 18 && Self.configs(m).contains { $0.topic.hasSuffix("_clock_offset/config") }
        }
        #expect(Self.schemaProblems(messages) == [])
        let retained = try await MQTTSubscriber.retained(port: broker.port, topic: "homeassistant/#")
        #expect(retained.map { String($0.topic.split(separator: "/")[2].dropFirst("ridegate_solo_".count)) }.sorted() == Self.sunOnlyKeys.sorted())
        #expect(Self.schemaProblems(retained) == [])

        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: TestTime.seconds(5)).flatMap(ChildProcess.exitCode) == 0)
        let after = try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/solo/#")
        #expect(after.first { $0.topic == "ridegate/solo/status" }?.payload == "offline")
        // No GPS ran: nothing says anything about one.
        #expect(!after.contains { $0.topic == "ridegate/solo/gps/state" || $0.topic == "ridegate/solo/position" })
        // The daemon keeps its entities across a stop; they show unavailable through the offline status.
        #expect(try await MQTTSubscriber.retained(port: broker.port, topic: "homeassistant/#").count == Self.sunOnlyKeys.count)
    }

    @Test("The demo with --keep-retained leaves its ride and status retained, but never its Home Assistant entities")
    func keepRetainedRemovesDiscovery() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "homeassistant/#")
        let demo = try ChildProcess(RidegateAppTestsPaths.executable,
                                    ["demo", "--keep-retained", "--broker", "127.0.0.1:\(broker.port)", "--speed", "20", "--device-id", "kept"],
                                    captureOutput: true)
        let announced = await sub.wait(timeout: TestTime.seconds(15)) { Set(Self.configs($0).filter { !$0.payload.isEmpty }.map(\.topic)).count >= 10 }
        #expect(Set(Self.configs(announced).map(\.topic)).count >= 10)
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        #expect(!(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/kept/ride")).isEmpty)
        let left = try await MQTTSubscriber.retained(port: broker.port, topic: "homeassistant/#")
        #expect(left.isEmpty, "entities left behind: \(left.map(\.topic).prefix(5))")
    }
}
