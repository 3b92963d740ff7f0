/// Home Assistant MQTT discovery (home-assistant.io/integrations/mqtt, "MQTT Discovery"): one retained config
/// per entity under `<discovery prefix>/<component>/<object id>/config`, written with the option names in full.
///
/// The gateway is a device with sensors and a GPS device tracker; each strap, power meter and speed/cadence
/// sensor is a device of its own reached through it (`via_device`). Entity ids are set with `default_entity_id` (`object_id` was removed in HA 2026.4),
/// every config carries the `origin` block, and only what is enabled is announced: the config of an entity
/// whose feature is off is sent empty (retained), which removes it from Home Assistant and from the broker.
///
/// Per-entity discovery rather than device-based discovery (`<prefix>/device/<id>/config`): an entity can be
/// removed on its own with an empty payload, the topics and unique ids stay those of earlier releases (an
/// upgrade keeps every entity and its history, with no migration step), and a strap that appears later adds
/// one message instead of rewriting the gateway's.
public struct HomeAssistantDiscovery: Sendable {
    /// What the gateway reads, so only those entities are announced.
    public struct Features: Sendable, Equatable {
        public var heartRate: Bool
        public var gps: Bool
        public var sun: Bool

        public init(heartRate: Bool = true, gps: Bool = true, sun: Bool = true) {
            self.heartRate = heartRate
            self.gps = gps
            self.sun = sun
        }
    }

    /// Where Home Assistant shows who announced the entities (its log and the device page).
    public static let supportURL = "https://github.com/ridegate/ridegate"
    /// Readings older than this are shown as unavailable: a lost strap or an unplugged GPS must not leave
    /// its last value on screen for hours. Straps notify about once a second, receivers 1–10 times.
    public static let minimumExpirySeconds = 15

    public let discoveryPrefix: String
    /// `<prefix>/<device_id>`: where the gateway publishes.
    public let baseTopic: String
    public let deviceID: String
    public let version: String
    public var features: Features
    /// Seconds between `heart_rate` / `gps` messages at most (the rate limits); expiry allows three of them.
    public var heartRateInterval: Double = 0
    public var gpsInterval: Double = 0
    /// Remove every announced config at an orderly stop (the demo: its entities must not outlive it).
    public var removeAtStop = false

    public init(discoveryPrefix: String, baseTopic: String, deviceID: String, version: String, features: Features = Features()) {
        self.discoveryPrefix = discoveryPrefix
        self.baseTopic = baseTopic
        self.deviceID = deviceID
        self.version = version
        self.features = features
    }

    var objectPrefix: String { "ridegate_\(deviceID)" }

    /// One entity of the gateway's device.
    struct Entity {
        enum Feature { case heartRate, gps, sun }
        var component: String
        var key: String
        var feature: Feature
        var fields: (inout JSONObjectWriter) -> Void
    }

    private var entities: [Entity] {
        let gps = sourceAvailability(topic: Topic.gpsState.name, when: "value_json.state == 'ok'")
        let gpsPresent = sourceAvailability(topic: Topic.gpsState.name, when: "value_json.state in ('ok', 'no_fix')")
        let heartRateExpiry = expiry(heartRateInterval)
        let gpsExpiry = expiry(gpsInterval)
        return [
            Entity(component: "sensor", key: "heart_rate", feature: .heartRate) { w in
                w.add("name", "Heart rate")
                stateFields(&w, topic: Topic.heartRate.name, template: "{{ value_json.bpm }}", icon: "mdi:heart-pulse")
                w.add("unit_of_measurement", "bpm")
                w.add("state_class", "measurement")
                w.add("expire_after", heartRateExpiry)
                availability(&w)
            },
            Entity(component: "sensor", key: "zone", feature: .heartRate) { w in
                w.add("name", "Heart-rate zone")
                stateFields(&w, topic: Topic.heartRate.name, template: "{{ value_json.zone }}", icon: "mdi:speedometer")
                w.add("state_class", "measurement")
                w.add("expire_after", heartRateExpiry)
                availability(&w)
            },
            Entity(component: "sensor", key: "speed", feature: .gps) { w in
                w.add("name", "Speed")
                stateFields(&w, topic: Topic.gps.name, template: "{{ value_json.speed_mps }}")
                w.add("unit_of_measurement", "m/s")
                w.add("device_class", "speed")
                w.add("state_class", "measurement")
                w.add("suggested_display_precision", 1)
                w.add("expire_after", gpsExpiry)
                availability(&w, gps)
            },
            Entity(component: "sensor", key: "distance", feature: .gps) { w in
                w.add("name", "Ride distance")
                stateFields(&w, topic: Topic.ride.name, template: "{{ value_json.distance_m }}")
                w.add("unit_of_measurement", "m")
                w.add("device_class", "distance")
                w.add("state_class", "total_increasing")
                w.add("suggested_display_precision", 0)
                availability(&w)
            },
            Entity(component: "sensor", key: "gps_state", feature: .gps) { w in
                w.add("name", "GPS")
                stateFields(&w, topic: Topic.gpsState.name, template: "{{ value_json.state }}", icon: "mdi:crosshairs-gps")
                w.add("device_class", "enum")
                w.add("options", json: "[" + GPSDeviceState.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]")
                w.add("entity_category", "diagnostic")
                availability(&w)
            },
            Entity(component: "device_tracker", key: "position", feature: .gps) { w in
                w.add("name", "Position")
                w.add("json_attributes_topic", "\(baseTopic)/\(Topic.position)")
                w.add("source_type", "gps")
                w.add("icon", "mdi:bike")
                availability(&w, gpsPresent)
            },
            Entity(component: "sensor", key: "sunset", feature: .sun) { w in
                w.add("name", "Sunset")
                stateFields(&w, topic: Topic.sun.name, template: "{{ value_json.sunset }}")
                w.add("device_class", "timestamp")
                availability(&w)
            },
            Entity(component: "sensor", key: "time_to_sunset", feature: .sun) { w in
                w.add("name", "Time to sunset")
                stateFields(&w, topic: Topic.sun.name, template: "{{ value_json.seconds_to_sunset }}")
                w.add("unit_of_measurement", "s")
                w.add("device_class", "duration")
                availability(&w)
            },
        ]
    }

    private func isEnabled(_ feature: Entity.Feature) -> Bool {
        switch feature {
        case .heartRate: features.heartRate
        case .gps: features.gps
        case .sun: features.sun
        }
    }

    /// The gateway's entities: a config for each enabled one, an empty retained config for each that is not
    /// (so turning a feature off removes its entities).
    public func gatewayConfigs() -> [Publication] {
        entities.map { entity in
            let topic = configTopic(component: entity.component, key: entity.key)
            guard isEnabled(entity.feature) else { return removal(topic) }
            var w = JSONObjectWriter(capacity: 768)
            w.add("unique_id", "\(objectPrefix)_\(entity.key)")
            w.add("default_entity_id", Self.entityID(component: entity.component, objectID: "\(objectPrefix)_\(entity.key)"))
            entity.fields(&w)
            w.add("device", json: gatewayDevice())
            w.add("origin", json: origin())
            return Publication(topic: topic, payload: w.finish(), retain: true, absolute: true)
        }
    }

    /// A BLE sensor as a device of its own reached through the gateway (`via_device`): a strap's battery
    /// (the ids of earlier releases), a power meter's or speed/cadence sensor's readings and battery. Each is
    /// available while the sensor is connected; readings also expire like the heart rate.
    public func sensorConfigs(_ sensor: SensorRef, details: SensorDetails, measures: Set<SensorMeasure>) -> [Publication] {
        var device = JSONObjectWriter(capacity: 200)
        device.add("identifiers", json: "[\"\(sensorObjectPrefix(sensor))\"]")
        device.add("name", details.name ?? Self.defaultName(sensor))
        if let manufacturer = details.manufacturer { device.add("manufacturer", manufacturer) }
        if let model = details.model { device.add("model", model) }
        device.add("via_device", objectPrefix)
        let deviceJSON = device.finish()
        let connected = sourceAvailability(topic: Topic.sensor(sensor, .state).name, when: "value_json.state == 'connected'")
        return sensorEntities(sensor, measures: measures).map { entity in
            let objectID = "\(sensorObjectPrefix(sensor))_\(entity.key)"
            var w = JSONObjectWriter(capacity: 768)
            w.add("unique_id", objectID)
            w.add("default_entity_id", Self.entityID(component: "sensor", objectID: objectID))
            entity.fields(&w)
            availability(&w, connected)
            w.add("device", json: deviceJSON)
            w.add("origin", json: origin())
            return Publication(topic: "\(discoveryPrefix)/sensor/\(objectID)/config", payload: w.finish(), retain: true, absolute: true)
        }
    }

    /// Empty retained configs for every entity the gateway and these sensors may have announced.
    public func removals(sensors: some Sequence<(key: SensorRef, value: Set<SensorMeasure>)>) -> [Publication] {
        entities.map { removal(configTopic(component: $0.component, key: $0.key)) }
            + sensors.flatMap { sensor, measures in
                sensorEntities(sensor, measures: measures).map {
                    removal("\(discoveryPrefix)/sensor/\(sensorObjectPrefix(sensor))_\($0.key)/config")
                }
            }
    }

    static func defaultName(_ sensor: SensorRef) -> String {
        switch sensor.kind {
        case .heartRate: "Heart-rate strap \(sensor.id)"
        case .power: "Power meter \(sensor.id)"
        case .speedCadence: "Speed/cadence sensor \(sensor.id)"
        }
    }

    /// `ridegate_<id>_strap_<address>` (as before) or `ridegate_<id>_sensor_<address>`.
    private func sensorObjectPrefix(_ sensor: SensorRef) -> String {
        "\(objectPrefix)_\(sensor.kind == .heartRate ? "strap" : "sensor")_\(sensor.id)"
    }

    private func sensorEntities(_ sensor: SensorRef, measures: Set<SensorMeasure>) -> [(key: String, fields: (inout JSONObjectWriter) -> Void)] {
        let readings = sensor.kind == .power ? "\(sensor.topic)/power" : "\(sensor.topic)/speed_cadence"
        let expiry = expiry(0)
        var list: [(key: String, fields: (inout JSONObjectWriter) -> Void)] = []
        if sensor.kind == .power, measures.contains(.power) {
            list.append(("power", { w in
                w.add("name", "Power")
                stateFields(&w, topic: readings, template: "{{ value_json.power_w }}")
                w.add("unit_of_measurement", "W")
                w.add("device_class", "power")
                w.add("state_class", "measurement")
                w.add("expire_after", expiry)
            }))
            list.append(("power_3s", { w in
                w.add("name", "Power (3 s)")
                stateFields(&w, topic: readings, template: "{{ value_json.power_3s_w }}")
                w.add("unit_of_measurement", "W")
                w.add("device_class", "power")
                w.add("state_class", "measurement")
                w.add("expire_after", expiry)
            }))
        }
        if sensor.kind != .heartRate, measures.contains(.cadence) {
            list.append(("cadence", { w in
                w.add("name", "Cadence")
                stateFields(&w, topic: readings, template: "{{ value_json.cadence_rpm }}", icon: "mdi:rotate-right")
                w.add("unit_of_measurement", "rpm")
                w.add("state_class", "measurement")
                w.add("suggested_display_precision", 0)
                w.add("expire_after", expiry)
            }))
        }
        if sensor.kind != .heartRate, measures.contains(.wheelSpeed) {
            list.append(("wheel_speed", { w in
                w.add("name", "Wheel speed")
                stateFields(&w, topic: readings, template: "{{ value_json.wheel_speed_mps }}")
                w.add("unit_of_measurement", "m/s")
                w.add("device_class", "speed")
                w.add("state_class", "measurement")
                w.add("suggested_display_precision", 1)
                w.add("expire_after", expiry)
            }))
        }
        list.append(("battery", { w in
            w.add("name", "Battery")
            stateFields(&w, topic: Topic.sensor(sensor, .info).name, template: "{{ value_json.battery_pct }}")
            w.add("unit_of_measurement", "%")
            w.add("device_class", "battery")
            w.add("state_class", "measurement")
            w.add("entity_category", "diagnostic")
        }))
        return list
    }

    /// `<component>.<object id>` as Home Assistant writes entity ids: lower case, `[a-z0-9_]`, no `__`.
    public static func entityID(component: String, objectID: String) -> String {
        var slug = ""
        for scalar in objectID.lowercased().unicodeScalars {
            let keep = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            if keep {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("_") {
                slug.append("_")
            }
        }
        while slug.hasSuffix("_") { slug.removeLast() }
        return "\(component).\(slug)"
    }

    // MARK: pieces

    private func configTopic(component: String, key: String) -> String {
        "\(discoveryPrefix)/\(component)/\(objectPrefix)_\(key)/config"
    }

    private func removal(_ topic: String) -> Publication {
        Publication(topic: topic, payload: "", retain: true, absolute: true)
    }

    private func expiry(_ interval: Double) -> Int {
        guard interval.isFinite, interval > 0 else { return Self.minimumExpirySeconds }
        return max(Self.minimumExpirySeconds, Int((3 * interval).rounded(.up)))
    }

    private func stateFields(_ w: inout JSONObjectWriter, topic: String, template: String, icon: String? = nil) {
        w.add("state_topic", "\(baseTopic)/\(topic)")
        w.add("value_template", template)
        if let icon { w.add("icon", icon) }
    }

    private func gatewayDevice() -> String {
        var d = JSONObjectWriter(capacity: 160)
        d.add("identifiers", json: "[\"\(objectPrefix)\"]")
        d.add("name", "ridegate \(deviceID)")
        d.add("manufacturer", "ridegate")
        d.add("model", "Bike sensor gateway")
        d.add("sw_version", version)
        return d.finish()
    }

    private func origin() -> String {
        var o = JSONObjectWriter(capacity: 96)
        o.add("name", "ridegate")
        o.add("sw_version", version)
        o.add("support_url", Self.supportURL)
        return o.finish()
    }

    /// An availability entry from one of the gateway's state topics: available while `condition` holds.
    private func sourceAvailability(topic: String, when condition: String) -> String {
        var a = JSONObjectWriter(capacity: 160)
        a.add("topic", "\(baseTopic)/\(topic)")
        a.add("value_template", "{{ 'online' if \(condition) else 'offline' }}")
        return a.finish()
    }

    /// Available only while the gateway is online and, where given, the entity's source is too.
    private func availability(_ w: inout JSONObjectWriter, _ source: String? = nil) {
        var gateway = JSONObjectWriter(capacity: 128)
        gateway.add("topic", "\(baseTopic)/status")
        gateway.add("payload_available", "online")
        gateway.add("payload_not_available", "offline")
        w.add("availability", json: "[" + ([gateway.finish()] + (source.map { [$0] } ?? [])).joined(separator: ",") + "]")
        w.add("availability_mode", "all")
    }
}
