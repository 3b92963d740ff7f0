import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// What Home Assistant sees of the built binary, through a real mosquitto: one device discovery message per
/// bike against the documented schema, only enabled features announced, stale values, retained states after a
/// stop, the demo kept out of the real gateway's namespace, and an earlier release's per-entity configs cleared once.
@Suite(.serialized) struct HomeAssistantTests {
    static let gatewayKeys = ["online", "heart_rate", "zone", "speed", "distance", "gps_state", "position", "riding", "moving_time",
                              "average_power", "work", "last_ride", "sunrise", "sunset", "civil_dusk", "time_to_sunset", "dark_soon",
                              "spool_depth", "ride_log_size"]
    /// What the sun-only gateway announces: its connection, the sun, its health.
    static let sunOnlyKeys = ["online", "sunrise", "sunset", "civil_dawn", "civil_dusk", "time_to_sunset", "dark_soon", "spool_depth",
                              "spool_dropped", "broker_connections", "sensor_reconnects", "gps_time_rejected", "ride_log_size", "clock_offset"]
    /// The demo: the gateway's 31 (no lap button, no auto-lap: no lap event), the strap's connection and battery, the
    /// power meter's connection, power, 3 s power, cadence, wheel speed and battery.
    static let demoComponents = 39

    static func discoveryMessages(_ messages: [MQTTSubscriber.Message]) -> [MQTTSubscriber.Message] {
        messages.filter { $0.topic.hasPrefix("homeassistant/") && $0.topic.hasSuffix("/config") }
    }

    /// The announced (not removed) components of the newest device message among `messages`.
    static func announced(_ messages: [MQTTSubscriber.Message]) -> [String: [String: Any]] {
        guard let last = discoveryMessages(messages).last(where: { $0.topic.hasPrefix("homeassistant/device/") && !$0.payload.isEmpty }),
              let components = HomeAssistantSchema.components(ofDevice: last.payload) else { return [:] }
        return components.filter { !$0.value.isEmpty }
    }

    static func schemaProblems(_ messages: [MQTTSubscriber.Message]) -> [String] {
        discoveryMessages(messages).filter { $0.topic.hasPrefix("homeassistant/device/") && !$0.payload.isEmpty }
            .flatMap { HomeAssistantSchema.deviceProblems(topic: $0.topic, payload: $0.payload) }
    }

    @Test("The demo: one device message passing the schema, its own id, nothing per entity; after SIGTERM nothing of it left retained")
    func demo() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "#")
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--broker", "127.0.0.1:\(broker.port)", "--speed", "20"], captureOutput: true)
        let messages = await sub.wait(timeout: TestTime.seconds(15)) { m in
            Self.announced(m).count == Self.demoComponents
                && m.contains { $0.topic.hasSuffix("/position") } && m.contains { $0.topic.hasSuffix("/heart_rate") && $0.json["zone"] is Int }
                && m.contains { $0.topic.hasSuffix("/sensor/demo-power/power") && $0.json["zone"] is Int && $0.json["cadence_rpm"] is Double }
        }
        // Its own namespace: <host name>-demo, never the host name the real gateway uses.
        let status = try #require(messages.first { $0.topic.hasPrefix("ridegate/") && $0.topic.hasSuffix("/status") }?.topic)
        let base = String(status.dropLast("/status".count))
        let id = String(base.dropFirst("ridegate/".count))
        #expect(id.hasSuffix("-demo") && id.count > "-demo".count, "device id \(id)")

        // One discovery topic, the device's: a new install never writes the per-entity ones.
        let deviceTopic = "homeassistant/device/\(id)/config"
        #expect(Set(Self.discoveryMessages(messages).map(\.topic)) == [deviceTopic])
        let announced = Self.announced(messages)
        #expect(announced.count == Self.demoComponents, "\(announced.keys.sorted())")
        #expect(Self.schemaProblems(messages) == [])
        for key in Self.gatewayKeys { #expect(announced[key] != nil, "\(key) not announced") }
        Self.expectEntityDetails(announced, id: id, base: base)

        // The tracker's topic carries a position or nothing: never a null one.
        let positions = messages.filter { $0.topic == "\(base)/position" }
        #expect(!positions.isEmpty)
        #expect(positions.allSatisfy { $0.json["latitude"] is Double && $0.json["longitude"] is Double && $0.json["gps_accuracy"] is Double })

        // Home Assistant's birth message brings the device message again.
        let before = sub.messages.filter { $0.topic == deviceTopic }.count
        let birth = try ChildProcess(try Executables.find("mosquitto_pub", hint: "apt-get install mosquitto-clients").path,
                                     ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "homeassistant/status", "-m", "online"])
        _ = await birth.waitForExit(timeout: 5)
        let again = await sub.wait(timeout: TestTime.seconds(10)) { $0.filter { $0.topic == deviceTopic }.count > before }
        #expect(again.filter { $0.topic == deviceTopic }.count > before)

        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(5)).flatMap(ChildProcess.exitCode) == 0)
        // Nothing retained: no discovery, no state, no ride summary, no position, no status. The next demo starts
        // from nothing (it used to show the previous ride's distance for a moment).
        let retained = try await MQTTSubscriber.retained(port: broker.port, topic: "#")
        #expect(retained.isEmpty, "left behind: \(retained.map(\.topic))")
        // The device went with one empty message.
        #expect(sub.messages.filter { $0.topic.hasPrefix("homeassistant/") && $0.payload.isEmpty }.map(\.topic) == [deviceTopic])
        // What it cleared was there: the final ride summary and the stopped states were published before.
        let stopped = sub.messages.filter { $0.topic == "\(base)/gps/state" && $0.json["state"] as? String == "stopped" }
        #expect(!stopped.isEmpty)
        #expect(sub.messages.contains { $0.topic == "\(base)/ride" && $0.json["final"] as? Bool == true })
    }

    /// What the demo's entities are announced with: expiry, entity ids, units and device classes, topics.
    static func expectEntityDetails(_ announced: [String: [String: Any]], id: String, base: String) {
        let byKey = { (key: String) in announced[key] ?? [:] }
        for key in ["heart_rate", "zone", "speed"] { #expect((byKey(key)["expire_after"] as? Int ?? 0) >= 15, "\(key) does not expire") }
        let slug = id.lowercased().replacingOccurrences(of: "-", with: "_")
        #expect(byKey("heart_rate")["default_entity_id"] as? String == "sensor.ridegate_\(slug)_heart_rate")
        #expect(byKey("position")["default_entity_id"] as? String == "device_tracker.ridegate_\(slug)_position")
        #expect(byKey("position")["json_attributes_topic"] as? String == "\(base)/position")
        let power = byKey("sensor_demo-power_power")
        #expect(power["device_class"] as? String == "power" && power["unit_of_measurement"] as? String == "W")
        #expect(power["state_topic"] as? String == "\(base)/sensor/demo-power/power")
        #expect(power["unique_id"] as? String == "ridegate_\(id)_sensor_demo-power_power")
        #expect(power["name"] as? String == "Demo power meter power")
        #expect(byKey("sensor_demo-power_cadence")["unit_of_measurement"] as? String == "rpm")
        #expect(byKey("sensor_demo-power_wheel_speed")["device_class"] as? String == "speed")
        #expect(byKey("sensor_demo-power_wheel_speed")["unit_of_measurement"] as? String == "km/h")
        #expect(byKey("sensor_demo-power_connected")["device_class"] as? String == "connectivity")
        #expect(byKey("strap_demo-strap_connected")["state_topic"] as? String == "\(base)/strap/demo-strap/state")
        #expect(byKey("speed")["unit_of_measurement"] as? String == "km/h")
    }

    /// A state directory as a 0.x release left it: a spool (version 1 layout) whose seq store names a power meter,
    /// and the strap `auto` chose.
    static func earlierInstall(state: String) async throws {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try "AA:BB:CC:DD:EE:FF public\n".write(toFile: state + "/strap", atomically: true, encoding: .utf8)
        _ = try await PythonSQLite.run("""
            db = sqlite3.connect(sys.argv[1])
            db.executescript("CREATE TABLE spool (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, payload TEXT NOT NULL, qos INTEGER NOT NULL);"
                             "CREATE TABLE sequence (topic TEXT PRIMARY KEY, value INTEGER NOT NULL);"
                             "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
                             "INSERT INTO sequence VALUES ('sensor/p1/power', 12), ('gps', 40);")
            db.commit()
            """, [state + "/spool.sqlite"])
    }

    @Test("An earlier release's per-entity configs are cleared once (migrate_discovery, then empty); GPS and heart rate off: only the sun is announced")
    func upgradeFromPerEntityConfigs() async throws {
        let broker = try await MosquittoBroker.start()
        let publish = try Executables.find("mosquitto_pub", hint: "apt-get install mosquitto-clients").path
        // What an earlier release left retained for this gateway: per-entity configs, a strap's and a power meter's among them.
        let strap = try #require(BluetoothAddress("AA:BB:CC:DD:EE:FF")).topicID
        let old = [("sensor", "heart_rate"), ("device_tracker", "position"), ("sensor", "sunset"), ("sensor", "strap_\(strap)_battery"),
                   ("sensor", "sensor_p1_power_3s")]
        for (component, key) in old {
            let config = #"{"name":"old","unique_id":"ridegate_solo_\#(key)","state_topic":"ridegate/solo/x"}"#
            let pub = try ChildProcess(publish, ["-h", "127.0.0.1", "-p", String(broker.port), "-r",
                                                 "-t", "homeassistant/\(component)/ridegate_solo_\(key)/config", "-m", config])
            #expect(await pub.waitForExit(timeout: 5).flatMap(ChildProcess.exitCode) == 0)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-ha-\(UUID().uuidString)").path
        try await Self.earlierInstall(state: dir + "/state")
        let config = dir + "/ridegate.toml"
        try TestConfigs.quiet(deviceID: "solo", dir: dir, brokerPort: broker.port, to: config)

        // -R: only what this run publishes, not the stale configs above.
        let sub = try MQTTSubscriber(port: broker.port, topic: "homeassistant/#", extraArguments: ["-R"])
        var daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", config], captureOutput: true)
        let messages = await sub.wait(timeout: TestTime.seconds(10)) { !Self.announced($0).isEmpty }
        #expect(Self.schemaProblems(messages) == [])
        #expect(Set(Self.announced(messages).keys) == Set(Self.sunOnlyKeys))
        // Each old topic: migrate_discovery first (Home Assistant keeps the entity's registry entry), then empty,
        // all before the device message.
        for (component, key) in old {
            let topic = "homeassistant/\(component)/ridegate_solo_\(key)/config"
            let steps = messages.filter { $0.topic == topic }.map(\.payload)
            #expect(steps == [#"{"migrate_discovery":true}"#, ""], "\(topic): \(steps)")
        }
        let deviceAt = try #require(messages.firstIndex { $0.topic == "homeassistant/device/solo/config" })
        #expect(!messages[deviceAt...].contains { $0.topic != "homeassistant/device/solo/config" })
        let retained = try await MQTTSubscriber.retained(port: broker.port, topic: "homeassistant/#")
        #expect(retained.map(\.topic) == ["homeassistant/device/solo/config"], "\(retained.map(\.topic))")
        #expect(await daemon.waitForOutput(timeout: 5) { $0.contains { $0.contains("per-entity Home Assistant discovery configs") } }
            .contains { $0.contains("per-entity Home Assistant discovery configs") })
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: TestTime.seconds(5)).flatMap(ChildProcess.exitCode) == 0)
        let after = try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/solo/#")
        #expect(after.first { $0.topic == "ridegate/solo/status" }?.payload == "offline")
        // No GPS ran: nothing says anything about one.
        #expect(!after.contains { $0.topic == "ridegate/solo/gps/state" || $0.topic == "ridegate/solo/position" })
        // The daemon keeps its entities across a stop; they show unavailable through the offline status.
        #expect(try await MQTTSubscriber.retained(port: broker.port, topic: "homeassistant/#").count == 1)

        // Recorded: the next start clears nothing.
        let second = try MQTTSubscriber(port: broker.port, topic: "homeassistant/#", extraArguments: ["-R"])
        daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", config], captureOutput: true)
        let again = await second.wait(timeout: TestTime.seconds(10)) { !Self.announced($0).isEmpty }
        #expect(Set(Self.discoveryMessages(again).map(\.topic)) == ["homeassistant/device/solo/config"])
        daemon.signal(SIGTERM)
        _ = await daemon.waitForExit(timeout: TestTime.seconds(5))
    }

    @Test("The demo with --keep-retained leaves its ride and status retained, but never its Home Assistant entities")
    func keepRetainedRemovesDiscovery() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "homeassistant/#")
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--keep-retained", "--broker", "127.0.0.1:\(broker.port)", "--speed", "20", "--device-id", "kept"],
                                    captureOutput: true)
        let announced = await sub.wait(timeout: TestTime.seconds(15)) { Self.announced($0).count >= 10 }
        #expect(Self.announced(announced).count >= 10)
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        #expect(!(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/kept/ride")).isEmpty)
        let left = try await MQTTSubscriber.retained(port: broker.port, topic: "homeassistant/#")
        #expect(left.isEmpty, "entities left behind: \(left.map(\.topic).prefix(5))")
    }
}
