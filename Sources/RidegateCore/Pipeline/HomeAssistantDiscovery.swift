/// Home Assistant MQTT discovery (home-assistant.io/integrations/mqtt, "MQTT Discovery"): one retained config
/// per entity under `<discovery prefix>/<component>/<object id>/config`, written with the option names in full.
///
/// The gateway is a device with live readings, the bike on the map, the ride's totals, laps as events, the sun
/// and health (the entity lists are in the `+Live`, `+Ride`, `+Status` extensions); each strap, power meter and
/// speed/cadence sensor is a device of its own reached through it (`via_device`, `+Sensors`). Entity ids are
/// set with `default_entity_id` (`object_id` was removed in HA 2026.4), every config carries the `origin`
/// block, and only what is enabled is announced: the config of an entity whose feature is off is sent empty
/// (retained), which removes it from Home Assistant and from the broker.
///
/// Per-entity discovery rather than device-based discovery (`<prefix>/device/<id>/config`): an entity can be
/// removed on its own with an empty payload, the topics and unique ids stay those of earlier releases (an
/// upgrade keeps every entity and its history, with no migration step), and a strap that appears later adds
/// its own messages instead of rewriting the gateway's.
public struct HomeAssistantDiscovery: Sendable {
    /// What the gateway reads, so only those entities are announced.
    public struct Features: Sendable, Equatable {
        public var heartRate: Bool
        public var gps: Bool
        public var sun: Bool
        /// A power meter is configured: the ride's power totals.
        public var power: Bool
        /// A lap button or auto-lap is configured: the lap event.
        public var laps: Bool

        public init(heartRate: Bool = true, gps: Bool = true, sun: Bool = true, power: Bool = false, laps: Bool = false) {
            self.heartRate = heartRate
            self.gps = gps
            self.sun = sun
            self.power = power
            self.laps = laps
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

    /// One entity of the gateway's device, announced when every feature it needs is on.
    struct Entity {
        enum Feature { case heartRate, gps, sun, power, laps }
        var component: String
        var key: String
        var needs: [Feature]
        var fields: (inout JSONObjectWriter) -> Void

        init(_ component: String, _ key: String, needs: [Feature] = [], fields: @escaping (inout JSONObjectWriter) -> Void) {
            self.component = component
            self.key = key
            self.needs = needs
            self.fields = fields
        }
    }

    /// Every entity of the gateway's device, in the order they are announced.
    var entities: [Entity] { liveEntities + rideEntities + sunEntities + healthEntities }

    private func isEnabled(_ feature: Entity.Feature) -> Bool {
        switch feature {
        case .heartRate: features.heartRate
        case .gps: features.gps
        case .sun: features.sun
        case .power: features.power
        case .laps: features.laps
        }
    }

    /// The gateway's entities: a config for each enabled one, an empty retained config for each that is not
    /// (so turning a feature off removes its entities).
    public func gatewayConfigs() -> [Publication] {
        entities.map { entity in
            let topic = configTopic(component: entity.component, key: entity.key)
            guard entity.needs.allSatisfy(isEnabled) else { return removal(topic) }
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
    /// (the ids of earlier releases), a power meter's or speed/cadence sensor's readings and battery, and its
    /// connection. Readings are available while the sensor is connected and expire like the heart rate.
    public func sensorConfigs(_ sensor: SensorRef, details: SensorDetails, measures: Set<SensorMeasure>) -> [Publication] {
        var device = JSONObjectWriter(capacity: 200)
        device.add("identifiers", json: "[\"\(sensorObjectPrefix(sensor))\"]")
        device.add("name", details.name ?? Self.defaultName(sensor))
        if let manufacturer = details.manufacturer { device.add("manufacturer", manufacturer) }
        if let model = details.model { device.add("model", model) }
        device.add("via_device", objectPrefix)
        let deviceJSON = device.finish()
        return sensorEntities(sensor, measures: measures).map { entity in
            let objectID = "\(sensorObjectPrefix(sensor))_\(entity.key)"
            var w = JSONObjectWriter(capacity: 768)
            w.add("unique_id", objectID)
            w.add("default_entity_id", Self.entityID(component: entity.component, objectID: objectID))
            entity.fields(&w)
            w.add("device", json: deviceJSON)
            w.add("origin", json: origin())
            return Publication(topic: "\(discoveryPrefix)/\(entity.component)/\(objectID)/config", payload: w.finish(), retain: true, absolute: true)
        }
    }

    /// Empty retained configs for every entity the gateway and these sensors may have announced.
    public func removals(sensors: some Sequence<(key: SensorRef, value: Set<SensorMeasure>)>) -> [Publication] {
        entities.map { removal(configTopic(component: $0.component, key: $0.key)) }
            + sensors.flatMap { sensor, measures in
                sensorEntities(sensor, measures: measures).map {
                    removal("\(discoveryPrefix)/\($0.component)/\(sensorObjectPrefix(sensor))_\($0.key)/config")
                }
            }
    }

    static func defaultName(_ sensor: SensorRef) -> String {
        "\(sensor.kind.deviceName) \(sensor.id)"
    }

    /// `ridegate_<id>_strap_<address>` (as before) or `ridegate_<id>_sensor_<address>`.
    func sensorObjectPrefix(_ sensor: SensorRef) -> String {
        "\(objectPrefix)_\(sensor.kind.topicFamily)_\(sensor.id)"
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

    func expiry(_ interval: Double) -> Int {
        guard interval > 0 else { return Self.minimumExpirySeconds }
        return Int(rounding: (3 * interval).rounded(.up), within: Self.minimumExpirySeconds...86_400) ?? Self.minimumExpirySeconds
    }

    func stateFields(_ w: inout JSONObjectWriter, topic: String, template: String, icon: String? = nil) {
        w.add("state_topic", "\(baseTopic)/\(topic)")
        w.add("value_template", template)
        if let icon { w.add("icon", icon) }
    }

    /// `field` (m/s) in km/h, or `None` (HA's unknown) when it is null: riders read km/h, and Home Assistant
    /// converts km/h to mph on a US install by itself (it leaves m/s alone on a metric one).
    static func kilometresPerHour(_ field: String) -> String {
        "{{ (value_json.\(field) * 3.6) | round(1) if value_json.\(field) is number else none }}"
    }

    /// `field` (m) in km, or `None` when it is null.
    static func kilometres(_ field: String) -> String {
        "{{ (value_json.\(field) / 1000) | round(3) if value_json.\(field) is number else none }}"
    }

    /// `field` to the nearest whole number, or `None` when it is null: a state that changes only when what is
    /// shown does (each change is a recorder row).
    static func whole(_ field: String) -> String {
        "{{ value_json.\(field) | round(0) | int if value_json.\(field) is number else none }}"
    }

    /// A binary sensor's state: `ON` while `condition` holds.
    static func onWhen(_ condition: String) -> String {
        "{{ 'ON' if \(condition) else 'OFF' }}"
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
    func sourceAvailability(topic: String, when condition: String) -> String {
        var a = JSONObjectWriter(capacity: 160)
        a.add("topic", "\(baseTopic)/\(topic)")
        a.add("value_template", "{{ 'online' if \(condition) else 'offline' }}")
        return a.finish()
    }

    /// Available only while the gateway is online and, where given, the entity's source is too.
    func availability(_ w: inout JSONObjectWriter, _ source: String? = nil) {
        var gateway = JSONObjectWriter(capacity: 128)
        gateway.add("topic", "\(baseTopic)/status")
        gateway.add("payload_available", "online")
        gateway.add("payload_not_available", "offline")
        w.add("availability", json: "[" + ([gateway.finish()] + (source.map { [$0] } ?? [])).joined(separator: ",") + "]")
        w.add("availability_mode", "all")
    }
}
