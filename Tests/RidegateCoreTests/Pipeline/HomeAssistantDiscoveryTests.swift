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

    /// Every entity of the gateway with everything on: (component, key).
    static let everything: [(String, String)] = [
        ("binary_sensor", "online"), ("sensor", "heart_rate"), ("sensor", "zone"), ("sensor", "speed"), ("sensor", "gps_state"),
        ("device_tracker", "position"), ("binary_sensor", "riding"), ("sensor", "distance"), ("sensor", "moving_time"),
        ("sensor", "elapsed_time"), ("sensor", "average_speed"), ("sensor", "maximum_speed"), ("sensor", "climb"),
        ("sensor", "average_heart_rate"), ("sensor", "average_power"), ("sensor", "normalized_power"), ("sensor", "work"),
        ("sensor", "last_ride"), ("event", "lap"), ("sensor", "sunrise"), ("sensor", "sunset"), ("sensor", "civil_dawn"),
        ("sensor", "civil_dusk"), ("sensor", "time_to_sunset"), ("binary_sensor", "dark_soon"), ("sensor", "spool_depth"),
        ("sensor", "spool_dropped"), ("sensor", "broker_connections"), ("sensor", "sensor_reconnects"), ("sensor", "gps_time_rejected"),
        ("sensor", "ride_log_size"), ("sensor", "clock_offset"),
    ]

    var full: HomeAssistantDiscovery {
        var d = discovery
        d.features = .init(heartRate: true, gps: true, sun: true, power: true, laps: true)
        return d
    }

    @Test("Every gateway config passes Home Assistant's schema: default_entity_id in its domain, origin, no object_id")
    func gatewayConfigsFollowTheSchema() throws {
        let configs = full.gatewayConfigs()
        #expect(configs.map { "\($0.topic.split(separator: "/")[1])/\($0.topic.split(separator: "/")[2])" }
            == Self.everything.map { "\($0.0)/ridegate_bike_\($0.1)" })
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
            if let availability = json["availability"] as? [[String: Any]] {
                #expect(availability.first?["topic"] as? String == "ridegate/bike/status")
                #expect(json["availability_mode"] as? String == "all")
            }
        }
    }

    @Test("Units a rider reads: km/h and km (HA converts them on a US install), durations in seconds, kJ, and each device class's own units")
    func units() throws {
        let configs = full.gatewayConfigs()
        for key in ["speed", "average_speed", "maximum_speed"] {
            let json = try config(configs, key)
            #expect(json["unit_of_measurement"] as? String == "km/h" && json["device_class"] as? String == "speed", "\(key)")
            #expect((json["value_template"] as? String)?.contains("* 3.6") == true, "\(key)")
        }
        for key in ["distance", "last_ride"] {
            let json = try config(configs, key)
            #expect(json["unit_of_measurement"] as? String == "km" && json["device_class"] as? String == "distance", "\(key)")
            #expect((json["value_template"] as? String)?.contains("/ 1000") == true, "\(key)")
        }
        for key in ["moving_time", "elapsed_time", "time_to_sunset"] {
            let json = try config(configs, key)
            #expect(json["unit_of_measurement"] as? String == "s" && json["device_class"] as? String == "duration", "\(key)")
        }
        #expect(try config(configs, "work")["unit_of_measurement"] as? String == "kJ")
        #expect(try config(configs, "work")["device_class"] as? String == "energy")
        #expect(try config(configs, "climb")["unit_of_measurement"] as? String == "m")
        #expect(try config(configs, "zone")["icon"] as? String != "mdi:speedometer")
        for key in ["sunrise", "sunset", "civil_dawn", "civil_dusk"] {
            let json = try config(configs, key)
            #expect(json["device_class"] as? String == "timestamp" && json["value_template"] as? String == "{{ value_json.\(key) }}", "\(key)")
        }
    }

    @Test("Readings that arrive continuously expire; the rest do not")
    func expiry() throws {
        var limited = full
        limited.heartRateInterval = 10 // max_heart_rate_per_s = 0.1
        let configs = full.gatewayConfigs()
        #expect(try config(configs, "heart_rate")["expire_after"] as? Int == 15)
        #expect(try config(configs, "zone")["expire_after"] as? Int == 15)
        #expect(try config(configs, "speed")["expire_after"] as? Int == 15)
        let expiring = configs.filter { (try? object($0))?["expire_after"] != nil }.map { $0.topic.split(separator: "/")[2] }
        #expect(expiring == ["ridegate_bike_heart_rate", "ridegate_bike_zone", "ridegate_bike_speed"])
        // Three of the slowest allowed messages, so a rate limit never makes a live value look stale.
        #expect(try config(limited.gatewayConfigs(), "heart_rate")["expire_after"] as? Int == 30)
    }

    @Test("What stays on screen when the gateway is off: the bike on the map, the ride's totals, the last ride, and 'online' turned off")
    func whatOutlivesTheGateway() throws {
        let configs = full.gatewayConfigs()
        let kept = configs.filter { (try? object($0))?["availability"] == nil }.map { String($0.topic.split(separator: "/")[2].dropFirst("ridegate_bike_".count)) }
        #expect(kept == ["online", "position", "distance", "moving_time", "elapsed_time", "average_speed", "maximum_speed", "climb",
                         "average_heart_rate", "average_power", "normalized_power", "work", "last_ride"])
        let tracker = try config(configs, "position")
        #expect(tracker["json_attributes_topic"] as? String == "ridegate/bike/position" && tracker["state_topic"] == nil)
        #expect(tracker["source_type"] as? String == "gps")
        let online = try config(configs, "online")
        #expect(online["state_topic"] as? String == "ridegate/bike/status" && online["device_class"] as? String == "connectivity")
        #expect(online["payload_on"] as? String == "online" && online["payload_off"] as? String == "offline")
        let last = try config(configs, "last_ride")
        #expect(last["state_topic"] as? String == "ridegate/bike/rides/last" && last["json_attributes_topic"] as? String == "ridegate/bike/rides/last")
    }

    @Test("Speed is unavailable without a fix; riding, the lap event and the sun follow the gateway; health is diagnostic")
    func perSourceAvailability() throws {
        let configs = full.gatewayConfigs()
        let speed = try #require(try config(configs, "speed")["availability"] as? [[String: Any]])
        #expect(speed.count == 2)
        #expect(speed[1]["topic"] as? String == "ridegate/bike/gps/state")
        #expect((speed[1]["value_template"] as? String)?.contains("value_json.state == 'ok'") == true)
        for key in ["riding", "lap", "dark_soon", "sunset"] {
            #expect((try config(configs, key)["availability"] as? [[String: Any]])?.count == 1, "\(key)")
        }
        let gpsState = try config(configs, "gps_state")
        #expect(gpsState["options"] as? [String] == ["ok", "no_fix", "no_device", "no_data", "stopped"])
        let lap = try config(configs, "lap")
        #expect(lap["event_types"] as? [String] == ["manual", "distance"] && lap["state_topic"] as? String == "ridegate/bike/lap")
        let health = configs.filter { (try? object($0))?["state_topic"] as? String == "ridegate/bike/health" }
        #expect(health.count == 7)
        for p in health { #expect((try object(p))["entity_category"] as? String == "diagnostic", "\(p.topic)") }
        let disabled = health.filter { (try? object($0))?["enabled_by_default"] as? Bool == false }.map { $0.topic.split(separator: "/")[2] }
        #expect(disabled == ["ridegate_bike_ride_log_size", "ridegate_bike_clock_offset"])
    }

    @Test("Only what is enabled is announced; the configs of what is off are sent empty, so Home Assistant removes them")
    func disabledFeaturesAreRemoved() throws {
        var sunOnly = discovery
        sunOnly.features = .init(heartRate: false, gps: false, sun: true)
        let configs = sunOnly.gatewayConfigs()
        #expect(configs.count == Self.everything.count)
        let announced = configs.filter { !$0.payload.isEmpty }.map { String($0.topic.split(separator: "/")[2].dropFirst("ridegate_bike_".count)) }
        #expect(announced == ["online", "sunrise", "sunset", "civil_dawn", "civil_dusk", "time_to_sunset", "dark_soon", "spool_depth",
                              "spool_dropped", "broker_connections", "sensor_reconnects", "gps_time_rejected", "ride_log_size", "clock_offset"])
        for p in configs where p.payload.isEmpty { #expect(p.retain && p.absolute) }
        // No power meter, no lap button or auto-lap: no power totals and no lap event.
        let plain = discovery.gatewayConfigs().filter(\.payload.isEmpty).map { String($0.topic.split(separator: "/")[2].dropFirst("ridegate_bike_".count)) }
        #expect(plain == ["average_power", "normalized_power", "work", "lap"])
        var noHeart = full
        noHeart.features.heartRate = false
        #expect(noHeart.gatewayConfigs().filter(\.payload.isEmpty).count == 3) // heart rate, zone, average heart rate
    }

    @Test("A strap is its own device, reached through the gateway: its connection, and its battery while connected")
    func strapConfigs() throws {
        let configs = discovery.sensorConfigs(.strap("f1f2f3f4f5f6"), details: SensorDetails(name: "Polar H10"), measures: [.heartRate])
        #expect(configs.map(\.topic) == ["homeassistant/binary_sensor/ridegate_bike_strap_f1f2f3f4f5f6_connected/config",
                                          "homeassistant/sensor/ridegate_bike_strap_f1f2f3f4f5f6_battery/config"])
        for p in configs { #expect(HomeAssistantSchema.problems(topic: p.topic, payload: p.payload) == []) }
        // Connected: off while searched for or lost; unavailable with the gateway, never a stale "on".
        let connected = try object(configs[0])
        #expect(connected["device_class"] as? String == "connectivity")
        #expect(connected["state_topic"] as? String == "ridegate/bike/strap/f1f2f3f4f5f6/state")
        #expect((connected["availability"] as? [[String: Any]])?.map { $0["topic"] as? String } == ["ridegate/bike/status"])
        let json = try object(configs[1])
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
            "ridegate_bike_sensor_d1d2d3d4d5d6_connected", "ridegate_bike_sensor_d1d2d3d4d5d6_power", "ridegate_bike_sensor_d1d2d3d4d5d6_power_3s",
            "ridegate_bike_sensor_d1d2d3d4d5d6_cadence", "ridegate_bike_sensor_d1d2d3d4d5d6_battery"])
        for p in configs { #expect(HomeAssistantSchema.problems(topic: p.topic, payload: p.payload) == [], "\(p.topic)") }
        let power = try object(configs[1])
        // The instantaneous power is a new recorder row every second: off by default, the 3 s average on.
        #expect(power["enabled_by_default"] as? Bool == false)
        #expect(try object(configs[2])["enabled_by_default"] == nil)
        #expect(power["device_class"] as? String == "power" && power["unit_of_measurement"] as? String == "W")
        #expect(power["state_topic"] as? String == "ridegate/bike/sensor/d1d2d3d4d5d6/power")
        #expect((power["expire_after"] as? Int ?? 0) >= 15)
        let availability = try #require(power["availability"] as? [[String: Any]])
        #expect(availability.last?["topic"] as? String == "ridegate/bike/sensor/d1d2d3d4d5d6/state")
        let device = try #require(power["device"] as? [String: Any])
        #expect(device["via_device"] as? String == "ridegate_bike")
        #expect(device["manufacturer"] as? String == "4iiii Innovations" && device["model"] as? String == "Precision 3")
        #expect(try object(configs[3])["unit_of_measurement"] as? String == "rpm")

        let hub = SensorRef(kind: .speedCadence, id: "a1a2a3a4a5a6")
        let speedOnly = discovery.sensorConfigs(hub, details: SensorDetails(), measures: [.wheelSpeed])
        #expect(speedOnly.map { String($0.topic.split(separator: "/")[2].split(separator: "_").dropFirst(4).joined(separator: "_")) }
            == ["connected", "wheel_speed", "battery"])
        let speed = try object(speedOnly[1])
        #expect(speed["unit_of_measurement"] as? String == "km/h")
        // With a GPS the wheel speed repeats the speed: disabled by default; without one it is the speed.
        #expect(speed["enabled_by_default"] as? Bool == false)
        var indoor = discovery
        indoor.features.gps = false
        let trainer = try object(indoor.sensorConfigs(hub, details: SensorDetails(), measures: [.wheelSpeed])[1])
        #expect(trainer["enabled_by_default"] == nil && trainer["unit_of_measurement"] as? String == "km/h")
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
        for p in odd.gatewayConfigs() + odd.sensorConfigs(.strap("demo-strap"), details: SensorDetails(), measures: [.heartRate]) where !p.payload.isEmpty {
            #expect(HomeAssistantSchema.problems(topic: p.topic, payload: p.payload) == [])
        }
    }

    @Test("Removal covers every gateway entity and the given straps")
    func removals() {
        let removals = discovery.removals(sensors: [(key: SensorRef.strap("demo-strap"), value: Set<SensorMeasure>([.heartRate]))])
        #expect(removals.count == Self.everything.count + 2)
        #expect(removals.allSatisfy { $0.payload.isEmpty && $0.retain && $0.absolute })
        #expect(Set(removals.map(\.topic)) == Set(full.gatewayConfigs().map(\.topic) + discovery.sensorConfigs(.strap("demo-strap"), details: SensorDetails(), measures: [.heartRate]).map(\.topic)))
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
