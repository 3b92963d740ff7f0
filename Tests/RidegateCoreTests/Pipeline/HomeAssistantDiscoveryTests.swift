import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The discovery configs against Home Assistant's documented schema (`HomeAssistantSchema`), and the rules
/// that are ridegate's own: what is announced for which feature, expiry, per-source availability, removal.
@Suite struct HomeAssistantDiscoveryTests {
    let discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/bike", deviceID: "bike", version: "0.1.0")

    func object(_ p: Publication) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(p.payload.utf8)) as? [String: Any])
    }

    func config(_ configs: [Publication], _ key: String) throws -> [String: Any] {
        try object(try #require(configs.first { $0.topic.hasSuffix("/ridegate_bike_\(key)/config") }, "no config for \(key)"))
    }

    @Test("Every gateway config passes Home Assistant's schema: default_entity_id in its domain, origin, no object_id")
    func gatewayConfigsFollowTheSchema() throws {
        let configs = discovery.gatewayConfigs()
        #expect(configs.count == 8)
        #expect(Set(configs.map(\.topic)).count == configs.count)
        for p in configs {
            #expect(p.retain && p.absolute && !p.payload.isEmpty)
            #expect(HomeAssistantSchema.problems(topic: p.topic, payload: p.payload) == [])
            let json = try object(p)
            let component = p.topic.split(separator: "/")[1]
            let objectID = p.topic.split(separator: "/")[2]
            #expect(json["default_entity_id"] as? String == "\(component).\(objectID)")
            #expect(json["unique_id"] as? String == String(objectID))
            let origin = try #require(json["origin"] as? [String: Any])
            #expect(origin["name"] as? String == "ridegate" && origin["sw_version"] as? String == "0.1.0")
            #expect((json["device"] as? [String: Any])?["identifiers"] as? [String] == ["ridegate_bike"])
            let availability = try #require(json["availability"] as? [[String: Any]])
            #expect(availability.first?["topic"] as? String == "ridegate/bike/status")
            #expect(json["availability_mode"] as? String == "all")
        }
    }

    @Test("Readings that arrive continuously expire; the rest do not")
    func expiry() throws {
        var limited = discovery
        limited.heartRateInterval = 10 // max_heart_rate_per_s = 0.1
        let configs = discovery.gatewayConfigs()
        #expect(try config(configs, "heart_rate")["expire_after"] as? Int == 15)
        #expect(try config(configs, "zone")["expire_after"] as? Int == 15)
        #expect(try config(configs, "speed")["expire_after"] as? Int == 15)
        for key in ["distance", "sunset", "time_to_sunset", "gps_state"] { #expect(try config(configs, key)["expire_after"] == nil, "\(key)") }
        // Three of the slowest allowed messages, so a rate limit never makes a live value look stale.
        #expect(try config(limited.gatewayConfigs(), "heart_rate")["expire_after"] as? Int == 30)
    }

    @Test("Speed is unavailable without a fix; the tracker while the GPS is gone; its position has its own topic")
    func perSourceAvailability() throws {
        let configs = discovery.gatewayConfigs()
        let speed = try #require(try config(configs, "speed")["availability"] as? [[String: Any]])
        #expect(speed.count == 2)
        #expect(speed[1]["topic"] as? String == "ridegate/bike/gps/state")
        #expect((speed[1]["value_template"] as? String)?.contains("value_json.state == 'ok'") == true)
        let tracker = try config(configs, "position")
        #expect(tracker["json_attributes_topic"] as? String == "ridegate/bike/position")
        #expect(tracker["source_type"] as? String == "gps")
        let trackerAvailability = try #require(tracker["availability"] as? [[String: Any]])
        #expect((trackerAvailability.last?["value_template"] as? String)?.contains("('ok', 'no_fix')") == true)
        let gpsState = try config(configs, "gps_state")
        #expect(gpsState["options"] as? [String] == ["ok", "no_fix", "no_device", "no_data", "stopped"])
    }

    @Test("Only what is enabled is announced; the configs of what is off are sent empty, so Home Assistant removes them")
    func disabledFeaturesAreRemoved() throws {
        var noSensors = discovery
        noSensors.features = .init(heartRate: false, gps: false, sun: true)
        let configs = noSensors.gatewayConfigs()
        #expect(configs.count == 8)
        let announced = configs.filter { !$0.payload.isEmpty }.map(\.topic).sorted()
        #expect(announced == ["homeassistant/sensor/ridegate_bike_sunset/config", "homeassistant/sensor/ridegate_bike_time_to_sunset/config"])
        for p in configs where p.payload.isEmpty { #expect(p.retain && p.absolute) }
        var nothing = discovery
        nothing.features = .init(heartRate: false, gps: false, sun: false)
        #expect(nothing.gatewayConfigs().allSatisfy { $0.payload.isEmpty })
    }

    @Test("A strap is its own device, reached through the gateway, available only while connected")
    func strapConfigs() throws {
        let p = try #require(discovery.sensorConfigs(.strap("f1f2f3f4f5f6"), details: SensorDetails(name: "Polar H10"), measures: [.heartRate]).first)
        #expect(HomeAssistantSchema.problems(topic: p.topic, payload: p.payload) == [])
        let json = try object(p)
        #expect(json["default_entity_id"] as? String == "sensor.ridegate_bike_strap_f1f2f3f4f5f6_battery")
        let device = try #require(json["device"] as? [String: Any])
        #expect(device["via_device"] as? String == "ridegate_bike")
        #expect(device["name"] as? String == "Polar H10")
        let availability = try #require(json["availability"] as? [[String: Any]])
        #expect(availability.count == 2)
        #expect(availability[1]["topic"] as? String == "ridegate/bike/strap/f1f2f3f4f5f6/state")
        #expect(json["device_class"] as? String == "battery")
    }

    @Test("A power meter and a speed-only sensor: entities for what each measures, in HA's units and classes, via the gateway")
    func cyclingSensorConfigs() throws {
        let meter = SensorRef(kind: .power, id: "d1d2d3d4d5d6")
        var details = SensorDetails(name: "4iiii")
        (details.manufacturer, details.model) = ("4iiii Innovations", "Precision 3")
        let configs = discovery.sensorConfigs(meter, details: details, measures: [.power, .cadence])
        #expect(configs.map { $0.topic.split(separator: "/")[2] } == [
            "ridegate_bike_sensor_d1d2d3d4d5d6_power", "ridegate_bike_sensor_d1d2d3d4d5d6_power_3s",
            "ridegate_bike_sensor_d1d2d3d4d5d6_cadence", "ridegate_bike_sensor_d1d2d3d4d5d6_battery"])
        for p in configs { #expect(HomeAssistantSchema.problems(topic: p.topic, payload: p.payload) == [], "\(p.topic)") }
        let power = try object(configs[0])
        #expect(power["device_class"] as? String == "power" && power["unit_of_measurement"] as? String == "W")
        #expect(power["state_topic"] as? String == "ridegate/bike/sensor/d1d2d3d4d5d6/power")
        #expect((power["expire_after"] as? Int ?? 0) >= 15)
        let availability = try #require(power["availability"] as? [[String: Any]])
        #expect(availability.last?["topic"] as? String == "ridegate/bike/sensor/d1d2d3d4d5d6/state")
        let device = try #require(power["device"] as? [String: Any])
        #expect(device["via_device"] as? String == "ridegate_bike")
        #expect(device["manufacturer"] as? String == "4iiii Innovations" && device["model"] as? String == "Precision 3")
        #expect(try object(configs[2])["unit_of_measurement"] as? String == "rpm")

        let hub = SensorRef(kind: .speedCadence, id: "a1a2a3a4a5a6")
        let speedOnly = discovery.sensorConfigs(hub, details: SensorDetails(), measures: [.wheelSpeed])
        #expect(speedOnly.map { String($0.topic.split(separator: "/")[2].split(separator: "_").dropFirst(4).joined(separator: "_")) }
            == ["wheel_speed", "battery"])
        let speed = try object(speedOnly[0])
        #expect(speed["device_class"] as? String == "speed" && speed["state_topic"] as? String == "ridegate/bike/sensor/a1a2a3a4a5a6/speed_cadence")
        #expect((speed["device"] as? [String: Any])?["name"] as? String == "Speed/cadence sensor a1a2a3a4a5a6")
        // Removal at stop covers every one of them.
        let removals = discovery.removals(sensors: [(key: meter, value: Set<SensorMeasure>([.power, .cadence]))])
        #expect(Set(configs.map(\.topic)).isSubset(of: Set(removals.map(\.topic))))
    }

    @Test("Entity ids are Home Assistant slugs whatever the device id: lower case, [a-z0-9_]")
    func entityIDs() {
        #expect(HomeAssistantDiscovery.entityID(component: "sensor", objectID: "ridegate_Pi-Demo_heart_rate") == "sensor.ridegate_pi_demo_heart_rate")
        #expect(HomeAssistantDiscovery.entityID(component: "sensor", objectID: "ridegate_bike_strap_demo-strap_battery")
            == "sensor.ridegate_bike_strap_demo_strap_battery")
        #expect(HomeAssistantDiscovery.entityID(component: "device_tracker", objectID: "ridegate__x--y_") == "device_tracker.ridegate_x_y")
        let odd = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/My-Bike", deviceID: "My-Bike", version: "1")
        for p in odd.gatewayConfigs() + odd.sensorConfigs(.strap("demo-strap"), details: SensorDetails(), measures: [.heartRate]) {
            #expect(HomeAssistantSchema.problems(topic: p.topic, payload: p.payload) == [])
        }
    }

    @Test("Removal covers every gateway entity and the given straps")
    func removals() {
        let removals = discovery.removals(sensors: [(key: SensorRef.strap("demo-strap"), value: Set<SensorMeasure>([.heartRate]))])
        #expect(removals.count == 9)
        #expect(removals.allSatisfy { $0.payload.isEmpty && $0.retain && $0.absolute })
        #expect(Set(removals.map(\.topic)) == Set(discovery.gatewayConfigs().map(\.topic) + discovery.sensorConfigs(.strap("demo-strap"), details: SensorDetails(), measures: [.heartRate]).map(\.topic)))
    }

    @Test("The schema checker itself refuses what Home Assistant refuses")
    func checkerRefuses() {
        let base = #"{"unique_id":"u","default_entity_id":"sensor.u","name":"n","state_topic":"a/b","device":{"identifiers":["d"]},"origin":{"name":"o"}"#
        let t = "homeassistant/sensor/u/config"
        #expect(HomeAssistantSchema.problems(topic: t, payload: base + "}") == [])
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base + #","object_id":"u"}"#).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base.replacingOccurrences(of: "sensor.u", with: "binary_sensor.u") + "}").isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base + #","device_class":"speed","unit_of_measurement":"bpm"}"#).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base + #","device_class":"timestamp","state_class":"measurement"}"#).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base + #","device_class":"distance","unit_of_measurement":"m","state_class":"total_increasing","expire_after":0}"#).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base + #","stat_t":"a/b"}"#).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base.replacingOccurrences(of: #","origin":{"name":"o"}"#, with: "") + "}").isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: "homeassistant/sensor/u.x/config", payload: base + "}").isEmpty)
    }
}
