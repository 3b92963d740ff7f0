/// Home Assistant MQTT discovery (home-assistant.io/integrations/mqtt, "MQTT Discovery"): retained config
/// messages under `<discovery prefix>/<component>/<object id>/config` that make the gateway a device with
/// sensors, the GPS a device tracker, and each strap a device connected through it (`via_device`).
/// Availability needs both the gateway's status and, for strap entities, the strap's own state.
public struct HomeAssistantDiscovery: Sendable {
    public let discoveryPrefix: String
    /// `<prefix>/<device_id>`: where the gateway publishes.
    public let baseTopic: String
    public let deviceID: String
    public let version: String

    public init(discoveryPrefix: String, baseTopic: String, deviceID: String, version: String) {
        self.discoveryPrefix = discoveryPrefix
        self.baseTopic = baseTopic
        self.deviceID = deviceID
        self.version = version
    }

    var objectPrefix: String { "ridegate_\(deviceID)" }

    private func gatewayDevice() -> String {
        var d = JSONObjectWriter(capacity: 160)
        d.add("identifiers", json: "[\"\(objectPrefix)\"]")
        d.add("name", "ridegate \(deviceID)")
        d.add("manufacturer", "ridegate")
        d.add("model", "Bike sensor gateway")
        d.add("sw_version", version)
        return d.finish()
    }

    private func availability(extra: String? = nil) -> String {
        var items = ["{\"topic\":\"\(baseTopic)/status\",\"payload_available\":\"online\",\"payload_not_available\":\"offline\"}"]
        if let extra { items.append(extra) }
        return "[" + items.joined(separator: ",") + "]"
    }

    private func sensor(_ key: String, name: String, topic: String, template: String, unit: String?, deviceClass: String?,
                        stateClass: String?, icon: String? = nil) -> Publication {
        var w = JSONObjectWriter(capacity: 512)
        w.add("name", name)
        w.add("unique_id", "\(objectPrefix)_\(key)")
        w.add("object_id", "\(objectPrefix)_\(key)")
        w.add("state_topic", "\(baseTopic)/\(topic)")
        w.add("value_template", template)
        if let unit { w.add("unit_of_measurement", unit) }
        if let deviceClass { w.add("device_class", deviceClass) }
        if let stateClass { w.add("state_class", stateClass) }
        if let icon { w.add("icon", icon) }
        w.add("availability", json: availability())
        w.add("availability_mode", "all")
        w.add("device", json: gatewayDevice())
        return Publication(topic: "\(discoveryPrefix)/sensor/\(objectPrefix)_\(key)/config", payload: w.finish(), retain: true,
                           absolute: true)
    }

    /// The gateway's own entities.
    public func gatewayConfigs() -> [Publication] {
        var configs = [
            sensor("heart_rate", name: "Heart rate", topic: "heart_rate", template: "{{ value_json.bpm }}", unit: "bpm",
                   deviceClass: nil, stateClass: "measurement", icon: "mdi:heart-pulse"),
            sensor("zone", name: "Heart-rate zone", topic: "heart_rate", template: "{{ value_json.zone }}", unit: nil,
                   deviceClass: nil, stateClass: "measurement", icon: "mdi:speedometer"),
            sensor("speed", name: "Speed", topic: "gps", template: "{{ value_json.speed_mps }}", unit: "m/s",
                   deviceClass: "speed", stateClass: "measurement"),
            sensor("distance", name: "Ride distance", topic: "ride", template: "{{ value_json.distance_m }}", unit: "m",
                   deviceClass: "distance", stateClass: "total_increasing"),
            sensor("sunset", name: "Sunset", topic: "sun", template: "{{ value_json.sunset }}", unit: nil,
                   deviceClass: "timestamp", stateClass: nil),
            sensor("time_to_sunset", name: "Time to sunset", topic: "sun", template: "{{ value_json.seconds_to_sunset }}", unit: "s",
                   deviceClass: "duration", stateClass: nil),
        ]
        var tracker = JSONObjectWriter(capacity: 512)
        tracker.add("name", "Bike")
        tracker.add("unique_id", "\(objectPrefix)_position")
        tracker.add("object_id", "\(objectPrefix)_position")
        tracker.add("json_attributes_topic", "\(baseTopic)/gps")
        tracker.add("json_attributes_template",
                    "{{ {'latitude': value_json.lat, 'longitude': value_json.lon, 'gps_accuracy': ((value_json.hdop or 1) * 5) | round(1)} | tojson }}")
        tracker.add("source_type", "gps")
        tracker.add("availability", json: availability())
        tracker.add("availability_mode", "all")
        tracker.add("device", json: gatewayDevice())
        configs.append(Publication(topic: "\(discoveryPrefix)/device_tracker/\(objectPrefix)_position/config",
                                   payload: tracker.finish(), retain: true, absolute: true))
        return configs
    }

    /// A strap's battery, as a device of its own reached through the gateway.
    public func strapConfigs(strapID: String, name: String?) -> [Publication] {
        var device = JSONObjectWriter(capacity: 160)
        device.add("identifiers", json: "[\"\(objectPrefix)_strap_\(strapID)\"]")
        device.add("name", name ?? "Heart-rate strap \(strapID)")
        device.add("via_device", objectPrefix)
        var w = JSONObjectWriter(capacity: 512)
        w.add("name", "Battery")
        w.add("unique_id", "\(objectPrefix)_strap_\(strapID)_battery")
        w.add("object_id", "\(objectPrefix)_strap_\(strapID)_battery")
        w.add("state_topic", "\(baseTopic)/strap/\(strapID)/info")
        w.add("value_template", "{{ value_json.battery_pct }}")
        w.add("unit_of_measurement", "%")
        w.add("device_class", "battery")
        w.add("state_class", "measurement")
        let strapAvailability = "{\"topic\":\"\(baseTopic)/strap/\(strapID)/state\","
            + "\"value_template\":\"{{ 'online' if value_json.state == 'connected' else 'offline' }}\"}"
        w.add("availability", json: availability(extra: strapAvailability))
        w.add("availability_mode", "all")
        w.add("device", json: device.finish())
        return [Publication(topic: "\(discoveryPrefix)/sensor/\(objectPrefix)_strap_\(strapID)_battery/config",
                            payload: w.finish(), retain: true, absolute: true)]
    }
}
