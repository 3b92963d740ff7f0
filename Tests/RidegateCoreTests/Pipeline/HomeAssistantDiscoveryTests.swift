import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The device discovery message against Home Assistant's documented schema (`HomeAssistantSchema`), and the
/// rules that are ridegate's own: what is announced for which feature, expiry, per-source availability, removal,
/// and the one-time clearing of an earlier release's per-entity configs.
@Suite struct HomeAssistantDiscoveryTests {
    let discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/bike", deviceID: "bike", version: "0.1.0")

    /// The components of `d`'s device message as Home Assistant takes them (device and origin merged in).
    func components(_ d: HomeAssistantDiscovery, sensors: [AnnouncedSensor] = [], removed: [AnnouncedSensor] = []) throws -> [String: [String: Any]] {
        try #require(HomeAssistantSchema.components(ofDevice: d.deviceConfig(sensors: sensors, removed: removed).payload))
    }

    func config(_ components: [String: [String: Any]], _ key: String) throws -> [String: Any] {
        try #require(components[key], "no component \(key)")
    }

    /// Every entity of the gateway with everything on: (component, key).
    static let everything: [(String, String)] = [
        ("binary_sensor", "online"), ("sensor", "heart_rate"), ("sensor", "zone"), ("sensor", "speed"), ("sensor", "gps_state"),
        ("device_tracker", "position"), ("binary_sensor", "riding"), ("sensor", "distance"), ("sensor", "moving_time"),
        ("sensor", "elapsed_time"), ("sensor", "average_speed"), ("sensor", "maximum_speed"), ("sensor", "climb"),
        ("sensor", "average_heart_rate"), ("sensor", "average_power"), ("sensor", "normalized_power"), ("sensor", "work"),
        ("sensor", "last_ride"), ("sensor", "ride_upload"), ("event", "lap"), ("sensor", "sunrise"), ("sensor", "sunset"), ("sensor", "civil_dawn"),
        ("sensor", "civil_dusk"), ("sensor", "time_to_sunset"), ("binary_sensor", "dark_soon"), ("sensor", "spool_depth"),
        ("sensor", "spool_dropped"), ("sensor", "broker_connections"), ("sensor", "sensor_reconnects"), ("sensor", "gps_time_rejected"),
        ("sensor", "ride_log_size"), ("sensor", "clock_offset"),
    ]

    var full: HomeAssistantDiscovery {
        var d = discovery
        d.features = .init(heartRate: true, gps: true, sun: true, power: true, laps: true, uploads: true)
        return d
    }

    static let polar = AnnouncedSensor(sensor: .strap("f1f2f3f4f5f6"), name: "Polar H10", measures: [.heartRate])

    @Test("One retained message per bike at homeassistant/device/<id>/config: Home Assistant's schema, every component with the ids of earlier releases")
    func deviceMessageFollowsTheSchema() throws {
        let message = full.deviceConfig(sensors: [Self.polar])
        #expect(message.topic == "homeassistant/device/bike/config" && message.retain && message.absolute && !message.oneShot)
        #expect(HomeAssistantSchema.deviceProblems(topic: message.topic, payload: message.payload) == [])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["device", "origin", "components"])
        let origin = try #require(json["origin"] as? [String: Any])
        #expect(origin["name"] as? String == "ridegate" && origin["sw_version"] as? String == "0.1.0")
        #expect((json["device"] as? [String: Any])?["identifiers"] as? [String] == ["ridegate_bike"])
        let all = try components(full, sensors: [Self.polar])
        #expect(Set(all.keys) == Set(Self.everything.map(\.1) + ["strap_f1f2f3f4f5f6_connected", "strap_f1f2f3f4f5f6_battery"]))
        for (component, key) in Self.everything {
            let c = try config(all, key)
            #expect(c["platform"] as? String == component, "\(key)")
            #expect(c["unique_id"] as? String == "ridegate_bike_\(key)", "\(key)")
            #expect(c["default_entity_id"] as? String == "\(component).ridegate_bike_\(key)", "\(key)")
            if let availability = c["availability"] as? [[String: Any]] {
                #expect(availability.first?["topic"] as? String == "ridegate/bike/status")
                #expect(c["availability_mode"] as? String == "all")
            }
        }
    }

    @Test("Units a rider reads: km/h and km (HA converts them on a US install), durations in seconds, kJ, and each device class's own units")
    func units() throws {
        let configs = try components(full)
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
        let configs = try components(full)
        #expect(try config(configs, "heart_rate")["expire_after"] as? Int == 15)
        #expect(try config(configs, "zone")["expire_after"] as? Int == 15)
        #expect(try config(configs, "speed")["expire_after"] as? Int == 15)
        let expiring = configs.filter { $0.value["expire_after"] != nil }.map(\.key)
        #expect(Set(expiring) == ["heart_rate", "zone", "speed"])
        // Three of the slowest allowed messages, so a rate limit never makes a live value look stale.
        #expect(try config(try components(limited), "heart_rate")["expire_after"] as? Int == 30)
    }

    @Test("What stays on screen when the gateway is off: the bike on the map, the ride's totals, the last ride, and 'online' turned off")
    func whatOutlivesTheGateway() throws {
        let configs = try components(full)
        let kept = configs.filter { $0.value["availability"] == nil }.map(\.key)
        #expect(Set(kept) == ["online", "position", "distance", "moving_time", "elapsed_time", "average_speed", "maximum_speed", "climb",
                              "average_heart_rate", "average_power", "normalized_power", "work", "last_ride", "ride_upload"])
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
        let configs = try components(full)
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
        let health = configs.filter { $0.value["state_topic"] as? String == "ridegate/bike/health" }
        #expect(health.count == 7)
        for (key, c) in health { #expect(c["entity_category"] as? String == "diagnostic", "\(key)") }
        let disabled = health.filter { $0.value["enabled_by_default"] as? Bool == false }.map(\.key)
        #expect(Set(disabled) == ["ride_log_size", "clock_offset"])
    }

    @Test("Only what is enabled is announced; what is off is sent as its platform alone, so Home Assistant removes it")
    func disabledFeaturesAreRemoved() throws {
        var sunOnly = discovery
        sunOnly.features = .init(heartRate: false, gps: false, sun: true)
        let configs = try components(sunOnly)
        #expect(configs.count == Self.everything.count)
        let announced = configs.filter { !$0.value.isEmpty }.map(\.key)
        #expect(Set(announced) == ["online", "sunrise", "sunset", "civil_dawn", "civil_dusk", "time_to_sunset", "dark_soon", "spool_depth",
                                   "spool_dropped", "broker_connections", "sensor_reconnects", "gps_time_rejected", "ride_log_size", "clock_offset"])
        let raw = try #require(try JSONSerialization.jsonObject(with: Data(sunOnly.deviceConfig(sensors: []).payload.utf8)) as? [String: Any])
        let speed = try #require((raw["components"] as? [String: Any])?["speed"] as? [String: Any])
        #expect(speed.count == 1 && speed["platform"] as? String == "sensor", "a removal is the platform alone: \(speed)")
        // No power meter, no lap button or auto-lap, no training site: no power totals, no lap event, no upload.
        let plain = try components(discovery).filter(\.value.isEmpty).map(\.key)
        #expect(Set(plain) == ["average_power", "normalized_power", "work", "lap", "ride_upload"])
        var noHeart = full
        noHeart.features.heartRate = false
        #expect(try components(noHeart).filter(\.value.isEmpty).count == 3) // heart rate, zone, average heart rate
    }

    @Test("A strap's entities are the bike's, named after the strap: its connection, and its battery while connected")
    func strapComponents() throws {
        let all = try components(discovery, sensors: [Self.polar])
        let connected = try config(all, "strap_f1f2f3f4f5f6_connected")
        #expect(connected["platform"] as? String == "binary_sensor" && connected["name"] as? String == "Polar H10 connected")
        // Connected: off while searched for or lost; unavailable with the gateway, never a stale "on".
        #expect(connected["device_class"] as? String == "connectivity")
        #expect(connected["state_topic"] as? String == "ridegate/bike/strap/f1f2f3f4f5f6/state")
        #expect((connected["availability"] as? [[String: Any]])?.map { $0["topic"] as? String } == ["ridegate/bike/status"])
        let battery = try config(all, "strap_f1f2f3f4f5f6_battery")
        // The unique and entity ids of the per-entity layout: Home Assistant keeps the entity and its history.
        #expect(battery["unique_id"] as? String == "ridegate_bike_strap_f1f2f3f4f5f6_battery")
        #expect(battery["default_entity_id"] as? String == "sensor.ridegate_bike_strap_f1f2f3f4f5f6_battery")
        #expect(battery["name"] as? String == "Polar H10 battery")
        #expect((battery["device"] as? [String: Any])?["identifiers"] as? [String] == ["ridegate_bike"])
        let availability = try #require(battery["availability"] as? [[String: Any]])
        #expect(availability.count == 2)
        #expect(availability[1]["topic"] as? String == "ridegate/bike/strap/f1f2f3f4f5f6/state")
        #expect(battery["device_class"] as? String == "battery")
    }

    @Test("A power meter and a speed-only sensor: components for what each measures, in HA's units and classes")
    func cyclingSensorComponents() throws {
        let meter = AnnouncedSensor(sensor: SensorRef(kind: .power, id: "d1d2d3d4d5d6"), name: "4iiii", measures: [.power, .cadence])
        let all = try components(discovery, sensors: [meter])
        let keys = all.keys.filter { $0.hasPrefix("sensor_d1d2d3d4d5d6_") }.map { String($0.dropFirst("sensor_d1d2d3d4d5d6_".count)) }
        #expect(Set(keys) == ["connected", "power", "power_3s", "cadence", "battery"])
        let power = try config(all, "sensor_d1d2d3d4d5d6_power")
        // The instantaneous power is a new recorder row every second: off by default, the 3 s average on.
        #expect(power["enabled_by_default"] as? Bool == false)
        #expect(try config(all, "sensor_d1d2d3d4d5d6_power_3s")["enabled_by_default"] == nil)
        #expect(try config(all, "sensor_d1d2d3d4d5d6_power_3s")["name"] as? String == "4iiii power (3 s)")
        #expect(power["device_class"] as? String == "power" && power["unit_of_measurement"] as? String == "W")
        #expect(power["state_topic"] as? String == "ridegate/bike/sensor/d1d2d3d4d5d6/power")
        #expect((power["expire_after"] as? Int ?? 0) >= 15)
        let availability = try #require(power["availability"] as? [[String: Any]])
        #expect(availability.last?["topic"] as? String == "ridegate/bike/sensor/d1d2d3d4d5d6/state")
        #expect(try config(all, "sensor_d1d2d3d4d5d6_cadence")["unit_of_measurement"] as? String == "rpm")

        let hub = SensorRef(kind: .speedCadence, id: "a1a2a3a4a5a6")
        let speedOnly = AnnouncedSensor(sensor: hub, name: HomeAssistantDiscovery.defaultName(hub), measures: [.wheelSpeed])
        let hubComponents = try components(discovery, sensors: [speedOnly]).filter { $0.key.hasPrefix("sensor_a1a2a3a4a5a6_") }
        #expect(Set(hubComponents.keys) == ["sensor_a1a2a3a4a5a6_connected", "sensor_a1a2a3a4a5a6_wheel_speed", "sensor_a1a2a3a4a5a6_battery"])
        let speed = try config(hubComponents, "sensor_a1a2a3a4a5a6_wheel_speed")
        #expect(speed["unit_of_measurement"] as? String == "km/h")
        #expect(speed["name"] as? String == "Speed/cadence sensor a1a2a3a4a5a6 wheel speed")
        // With a GPS the wheel speed repeats the speed: disabled by default; without one it is the speed.
        #expect(speed["enabled_by_default"] as? Bool == false)
        var indoor = discovery
        indoor.features.gps = false
        let trainer = try config(try components(indoor, sensors: [speedOnly]), "sensor_a1a2a3a4a5a6_wheel_speed")
        #expect(trainer["enabled_by_default"] == nil && trainer["unit_of_measurement"] as? String == "km/h")
        #expect(speed["device_class"] as? String == "speed" && speed["state_topic"] as? String == "ridegate/bike/sensor/a1a2a3a4a5a6/speed_cadence")
    }

    @Test("A sensor no longer configured is sent as platforms alone; the demo's stop removes the device with one empty message")
    func removals() throws {
        let removed = try components(discovery, removed: [Self.polar])
        #expect(removed["strap_f1f2f3f4f5f6_battery"]?.isEmpty == true && removed["strap_f1f2f3f4f5f6_connected"]?.isEmpty == true)
        let stop = discovery.deviceRemoval()
        #expect(stop.topic == "homeassistant/device/bike/config" && stop.payload.isEmpty && stop.retain && stop.absolute)
    }

    @Test("An earlier release's per-entity configs: each topic gets migrate_discovery, then an empty retained payload, one-shot")
    func legacyMigration() throws {
        let meter = SensorRef(kind: .power, id: "d1d2d3d4d5d6")
        let steps = full.legacyMigration(sensors: [Self.polar.sensor, meter])
        #expect(steps.allSatisfy { $0.oneShot && $0.absolute })
        for pair in stride(from: 0, to: steps.count, by: 2) {
            #expect(steps[pair].topic == steps[pair + 1].topic)
            #expect(steps[pair].payload == #"{"migrate_discovery":true}"# && !steps[pair].retain)
            #expect(steps[pair + 1].payload.isEmpty && steps[pair + 1].retain)
        }
        // Every config the per-entity layout published: <prefix>/<platform>/<unique id>/config.
        let announced = AnnouncedSensor(sensor: meter, name: "4iiii", measures: Set(SensorMeasure.allCases))
        let old = try components(full, sensors: [Self.polar, announced]).filter { $0.key != "ride_upload" } // newer than that layout
            .map { "homeassistant/\($0.value["platform"] ?? "")/\($0.value["unique_id"] ?? "")/config" }
        #expect(Set(steps.map(\.topic)) == Set(old))
        #expect(steps.count == 2 * old.count, "each topic once")
    }

    @Test("Entity ids are Home Assistant slugs whatever the device id: lower case, [a-z0-9_]")
    func entityIDs() {
        #expect(HomeAssistantDiscovery.entityID(component: "sensor", objectID: "ridegate_Pi-Demo_heart_rate") == "sensor.ridegate_pi_demo_heart_rate")
        #expect(HomeAssistantDiscovery.entityID(component: "sensor", objectID: "ridegate_bike_strap_demo-strap_battery")
            == "sensor.ridegate_bike_strap_demo_strap_battery")
        #expect(HomeAssistantDiscovery.entityID(component: "device_tracker", objectID: "ridegate__x--y_") == "device_tracker.ridegate_x_y")
        let odd = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/My-Bike", deviceID: "My-Bike", version: "1")
        let message = odd.deviceConfig(sensors: [AnnouncedSensor(sensor: .strap("demo-strap"), name: "Demo strap", measures: [.heartRate])])
        #expect(HomeAssistantSchema.deviceProblems(topic: message.topic, payload: message.payload) == [])
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
        #expect(
            !HomeAssistantSchema.problems(
                topic: t, payload: base + #","device_class":"distance","unit_of_measurement":"m","state_class":"total_increasing","expire_after":0}"#
            ).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base + #","stat_t":"a/b"}"#).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: t, payload: base.replacingOccurrences(of: #","origin":{"name":"o"}"#, with: "") + "}").isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: "homeassistant/sensor/u.x/config", payload: base + "}").isEmpty)
        // Device messages: only device, origin and components at the top; a component's own device is ignored.
        let device =
            #"{"device":{"identifiers":["d"]},"origin":{"name":"o"},"components":{"u":{"platform":"sensor","unique_id":"u","default_entity_id":"sensor.u","name":"n","state_topic":"a/b"}}"#
        let d = "homeassistant/device/d/config"
        #expect(HomeAssistantSchema.deviceProblems(topic: d, payload: device + "}") == [])
        #expect(!HomeAssistantSchema.deviceProblems(topic: d, payload: device + #","~":"a"}"#).isEmpty)
        #expect(!HomeAssistantSchema.deviceProblems(topic: d, payload: device.replacingOccurrences(of: #""origin":{"name":"o"},"#, with: "") + "}").isEmpty)
        #expect(
            !HomeAssistantSchema.deviceProblems(
                topic: d,
                payload: device.replacingOccurrences(of: #""state_topic":"a/b"}"#, with: #""state_topic":"a/b","device":{"identifiers":["x"]}}"#)
                    + "}"
            ).isEmpty)
        #expect(
            !HomeAssistantSchema.deviceProblems(topic: d, payload: device.replacingOccurrences(of: #""platform":"sensor","#, with: "") + "}").isEmpty)
        #expect(!HomeAssistantSchema.deviceProblems(topic: "homeassistant/device/d.x/config", payload: device + "}").isEmpty)
    }
}
