/// Home Assistant MQTT discovery, device-based (home-assistant.io/integrations/mqtt, "Device discovery payload"):
/// one retained message per bike at `<discovery prefix>/device/<device_id>/config`, carrying the device, the
/// `origin` and every component, written with the option names in full.
///
/// The device id is a whole topic level, so a fleet broker confines each bike's discovery with one ACL pattern
/// (deploy/fleet/acl). Home Assistant attaches every component of the message to its one device (a component's
/// own `device` is ignored), so the entities of a strap, power meter or speed/cadence sensor are the bike's,
/// named after the sensor (`+Sensors`). The gateway's entities are live readings, the bike on the map, the ride's
/// totals, laps as events, the sun and health (`+Live`, `+Ride`, `+Status`). Entity ids are set with
/// `default_entity_id` (`object_id` was removed in HA 2026.4).
///
/// The unique ids are those of the per-entity layout of earlier releases (`<prefix>/<component>/<object id>/config`),
/// so an upgrade keeps every entity id and its history; `legacyMigration` clears those configs once. A component
/// whose feature is off, or whose sensor is no longer configured, is sent as its platform alone: how Home
/// Assistant removes one component of a device.
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
        /// A training site is configured: the last ride's upload.
        public var uploads: Bool

        public init(heartRate: Bool = true, gps: Bool = true, sun: Bool = true, power: Bool = false, laps: Bool = false, uploads: Bool = false) {
            self.heartRate = heartRate
            self.gps = gps
            self.sun = sun
            self.power = power
            self.laps = laps
            self.uploads = uploads
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
    /// How many heart-rate zones the configuration has (the zone sensor's `zones` attribute and colours).
    public var heartRateZones = 5
    /// Remove the device at an orderly stop (the demo: its entities must not outlive it).
    public var removeAtStop = false
    /// The sensors an earlier run announced that the configuration still has: announced from the start, so a
    /// sensor that has not connected yet keeps its entities.
    public var rememberedSensors: [AnnouncedSensor] = []
    /// The sensors an earlier run announced that the configuration no longer has: removed at start, then forgotten.
    public var forgottenSensors: [AnnouncedSensor] = []
    /// An earlier release's per-entity configs to clear at start (`legacyMigration`), with the sensors it may
    /// have announced; nil when there is nothing to migrate.
    public var legacySensors: [SensorRef]?

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
        enum Feature { case heartRate, gps, sun, power, laps, uploads }
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
        case .uploads: features.uploads
        }
    }

    /// `<discovery prefix>/device/<device_id>/config`.
    public var deviceTopic: String { "\(discoveryPrefix)/device/\(deviceID)/config" }

    /// The bike's one discovery message: the gateway's components (those whose feature is off as their platform
    /// alone), each announced sensor's, and each removed sensor's as its platform alone.
    public func deviceConfig(sensors: [AnnouncedSensor], removed: [AnnouncedSensor] = []) -> Publication {
        var components = JSONObjectWriter(capacity: 32_768)
        for entity in entities {
            let enabled = entity.needs.allSatisfy(isEnabled)
            components.add(entity.key, json: enabled ? component(entity, objectID: "\(objectPrefix)_\(entity.key)") : platformOnly(entity))
        }
        for sensor in sensors {
            for entity in sensorEntities(sensor) {
                components.add(sensorComponentKey(sensor.sensor, entity), json: component(entity, objectID: sensorObjectID(sensor.sensor, entity)))
            }
        }
        for sensor in removed {
            for entity in sensorEntities(sensor) { components.add(sensorComponentKey(sensor.sensor, entity), json: platformOnly(entity)) }
        }
        var w = JSONObjectWriter(capacity: 33_000)
        w.add("device", json: gatewayDevice())
        w.add("origin", json: origin())
        w.add("components", json: components.finish())
        return Publication(topic: deviceTopic, payload: w.finish(), retain: true, absolute: true)
    }

    /// The empty retained message that removes the bike's device and every entity of it (the demo at its stop).
    public func deviceRemoval() -> Publication {
        Publication(topic: deviceTopic, payload: "", retain: true, absolute: true)
    }

    /// The per-entity configs an earlier release may have left retained, each cleared once: first
    /// `{"migrate_discovery":true}` (Home Assistant unloads the entity and keeps its registry entry, so the device
    /// message takes it over with its entity id and history), then an empty retained payload (the broker forgets
    /// the config). Sent before the device message, in Home Assistant's documented order. `sensors`: those an
    /// earlier release may have announced; a topic never used costs a message and nothing else.
    /// Entities added after releases stopped writing per-entity configs: no earlier topic of theirs to clear.
    static let sinceDeviceLayout: Set<String> = ["ride_upload"]

    public func legacyMigration(sensors: [SensorRef]) -> [Publication] {
        let gateway = entities.filter { !Self.sinceDeviceLayout.contains($0.key) }.map { ($0.component, "\(objectPrefix)_\($0.key)") }
        let sensorIDs = sensors.flatMap { sensor in
            sensorEntities(AnnouncedSensor(sensor: sensor, name: "", measures: Set(SensorMeasure.allCases))).map {
                ($0.component, sensorObjectID(sensor, $0))
            }
        }
        var seen = Set<String>()
        return (gateway + sensorIDs).flatMap { component, objectID -> [Publication] in
            let topic = "\(discoveryPrefix)/\(component)/\(objectID)/config"
            guard seen.insert(topic).inserted else { return [] }
            return [Publication(topic: topic, payload: #"{"migrate_discovery":true}"#, absolute: true, oneShot: true),
                    Publication(topic: topic, payload: "", retain: true, absolute: true, oneShot: true)]
        }
    }

    /// `<kind> <id>`: the name of a sensor that reports none.
    public static func defaultName(_ sensor: SensorRef) -> String {
        "\(sensor.kind.deviceName) \(sensor.id)"
    }

    /// `ridegate_<id>_strap_<address>_<key>` or `ridegate_<id>_sensor_<address>_<key>`: the unique id and
    /// object id of earlier releases.
    private func sensorObjectID(_ sensor: SensorRef, _ entity: Entity) -> String {
        "\(objectPrefix)_\(sensorComponentKey(sensor, entity))"
    }

    /// The component's key in the device message: `strap_<address>_<key>` or `sensor_<address>_<key>`.
    private func sensorComponentKey(_ sensor: SensorRef, _ entity: Entity) -> String {
        "\(sensor.kind.topicFamily)_\(sensor.id)_\(entity.key)"
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

    /// One component of the device message: its platform, ids and options (the device and origin are the message's).
    private func component(_ entity: Entity, objectID: String) -> String {
        var w = JSONObjectWriter(capacity: 768)
        w.add("platform", entity.component)
        w.add("unique_id", objectID)
        w.add("default_entity_id", Self.entityID(component: entity.component, objectID: objectID))
        entity.fields(&w)
        return w.finish()
    }

    /// A component given as its platform alone: Home Assistant removes it (and ignores one it never had).
    private func platformOnly(_ entity: Entity) -> String {
        var w = JSONObjectWriter(capacity: 32)
        w.add("platform", entity.component)
        return w.finish()
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
