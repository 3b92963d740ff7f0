import Foundation

/// Home Assistant's MQTT discovery schema for the platforms ridegate announces (sensor, binary_sensor, event,
/// device_tracker), as its documentation states it (home-assistant.io/integrations/mqtt, /integrations/sensor.mqtt,
/// /integrations/binary_sensor.mqtt, /integrations/event.mqtt, /integrations/device_tracker.mqtt) and its source
/// lists it (components/sensor/const.py's DEVICE_CLASS_UNITS and DEVICE_CLASS_STATE_CLASSES, read from 2026.2.3;
/// BinarySensorDeviceClass): the documented options in full (no abbreviations), what is required, which units and state classes each device
/// class accepts, and `default_entity_id` (which replaced `object_id`, removed in 2026.4).
///
/// `problems` returns every way a config breaks those rules; an empty list means Home Assistant would create
/// the entity. Only the device classes ridegate uses are listed: a new one must be added here, with its
/// documented units, before a test passes.
public enum HomeAssistantSchema {
    static let common: Set<String> = [
        "availability", "availability_mode", "availability_template", "availability_topic", "default_entity_id", "device",
        "enabled_by_default", "encoding", "entity_category", "entity_picture", "icon", "json_attributes_template",
        "json_attributes_topic", "name", "origin", "payload_available", "payload_not_available", "platform", "qos", "unique_id",
    ]
    static let sensorOptions = common.union([
        "device_class", "expire_after", "force_update", "last_reset_value_template", "options", "state_class", "state_topic",
        "suggested_display_precision", "unit_of_measurement", "value_template",
    ])
    static let binarySensorOptions = common.union([
        "device_class", "expire_after", "force_update", "off_delay", "payload_off", "payload_on", "state_topic", "value_template",
    ])
    static let eventOptions = common.union(["device_class", "event_types", "state_topic", "value_template"])
    static let trackerOptions = common.union([
        "payload_home", "payload_not_home", "payload_reset", "source_type", "state_topic", "value_template",
    ])
    static let deviceOptions: Set<String> = [
        "configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model", "model_id", "name",
        "serial_number", "suggested_area", "sw_version", "via_device",
    ]
    static let originOptions: Set<String> = ["name", "sw_version", "support_url"]
    static let availabilityOptions: Set<String> = ["payload_available", "payload_not_available", "topic", "value_template"]
    static let stateClasses: Set<String> = ["measurement", "measurement_angle", "total", "total_increasing"]
    static let binarySensorClasses: Set<String> = [
        "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat", "light", "lock",
        "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence", "problem", "running", "safety", "smoke",
        "sound", "tamper", "update", "vibration", "window",
    ]
    /// Device class → (units allowed, state classes allowed), from the sensor documentation's table.
    static let deviceClasses: [String: (units: Set<String>, stateClasses: Set<String>)] = [
        "battery": (["%"], ["measurement"]),
        "distance": (["km", "m", "cm", "mm", "mi", "nmi", "yd", "in", "ft"], ["measurement", "measurement_angle", "total", "total_increasing"]),
        "duration": (["d", "h", "min", "s", "ms", "μs"], ["measurement", "measurement_angle", "total", "total_increasing"]),
        "data_size": (["bit", "kbit", "Mbit", "Gbit", "B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB", "KiB", "MiB", "GiB", "TiB",
                       "PiB", "EiB", "ZiB", "YiB"], ["measurement", "measurement_angle", "total", "total_increasing"]),
        "energy": (["J", "kJ", "MJ", "GJ", "mWh", "Wh", "kWh", "MWh", "GWh", "TWh", "cal", "kcal", "Mcal", "Gcal"], ["total", "total_increasing"]),
        "enum": ([], []),
        "power": (["W", "kW", "mW", "MW", "GW", "TW"], ["measurement"]),
        "speed": (["ft/s", "in/d", "in/h", "in/s", "km/h", "kn", "m/min", "m/s", "mph", "mm/d", "mm/h", "mm/s", "Beaufort"], ["measurement"]),
        "timestamp": ([], []),
    ]

    static let platforms: Set<String> = ["sensor", "binary_sensor", "event", "device_tracker"]

    /// A device discovery message's components as Home Assistant takes them: each merged with the message's
    /// device and origin (which a component cannot override), keyed by its key in `components`. A component
    /// given as its platform alone (a removal) is an empty object. Nil when the payload is not such a message.
    public static func components(ofDevice payload: String) -> [String: [String: Any]]? {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any],
              let components = json["components"] as? [String: [String: Any]] else { return nil }
        return components.mapValues { component in
            guard component.keys.contains(where: { $0 != "platform" }) else { return [:] }
            var merged = component
            merged["device"] = json["device"]
            merged["origin"] = json["origin"]
            return merged
        }
    }

    /// Every rule a device discovery message (`<prefix>/device/<object_id>/config`) breaks: the message's own
    /// (only device, origin and components; both mappings valid; each component with a known platform, a key of
    /// `[a-zA-Z0-9_-]`, and no device or origin of its own, which Home Assistant would ignore), then each
    /// component's as a config of its platform.
    public static func deviceProblems(topic: String, payload: String, prefix: String = "homeassistant") -> [String] {
        var found: [String] = []
        func fail(_ text: String) { found.append("\(topic): \(text)") }
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == prefix, parts[1] == "device", parts[3] == "config", isObjectID(parts[2]) else {
            return ["\(topic): not <prefix>/device/<object_id>/config"]
        }
        guard let json = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any],
              let components = json["components"] as? [String: [String: Any]] else {
            return ["\(topic): payload is not a JSON object with components"]
        }
        for key in Set(json.keys).subtracting(["device", "origin", "components"]).sorted() { fail("'\(key)' at the top level invalidates the message") }
        deviceProblems(json, fail)
        for (key, component) in components.sorted(by: { $0.key < $1.key }) {
            guard let platform = component["platform"] as? String, platforms.contains(platform) else {
                fail("component \(key): no platform ridegate announces")
                continue
            }
            if !isObjectID(key) { fail("component key '\(key)' is not [a-zA-Z0-9_-]+") }
            if component["device"] != nil || component["origin"] != nil { fail("component \(key): its own device or origin is ignored") }
            guard component.count > 1, let merged = Self.components(ofDevice: payload)?[key],
                  let text = try? JSONSerialization.data(withJSONObject: merged.filter { $0.key != "platform" }) else { continue }
            found += problems(topic: "\(prefix)/\(platform)/\(key)/config", payload: String(decoding: text, as: UTF8.self), prefix: prefix)
        }
        return found
    }

    static func isObjectID(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    /// Every rule this config (published on `topic`, under discovery prefix `prefix`) breaks.
    public static func problems(topic: String, payload: String, prefix: String = "homeassistant") -> [String] {
        var found: [String] = []
        func fail(_ text: String) { found.append("\(topic): \(text)") }
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == prefix, parts[3] == "config" else {
            return ["\(topic): not <prefix>/<component>/<object_id>/config"]
        }
        let component = parts[1]
        if !isObjectID(parts[2]) {
            fail("object id '\(parts[2])' is not [a-zA-Z0-9_-]+")
        }
        guard let json = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any] else {
            return ["\(topic): payload is not a JSON object"]
        }
        let options: Set<String>
        switch component {
        case "sensor": options = sensorOptions
        case "device_tracker": options = trackerOptions
        case "binary_sensor": options = binarySensorOptions
        case "event": options = eventOptions
        default: return ["\(topic): component \(component) is not one ridegate announces"]
        }
        for key in Set(json.keys).subtracting(options).sorted() { fail("'\(key)' is not a documented option") }
        if json["object_id"] != nil { fail("'object_id' was removed in Home Assistant 2026.4") }

        identityProblems(json, component: component, fail)
        componentProblems(json, component: component, fail)
        availabilityProblems(json, fail)
        deviceProblems(json, fail)
        if component == "sensor" { sensorProblems(json, fail) }
        return found
    }

    /// Identity: a unique id (without one an entity cannot be edited or belong to a device) and the entity id.
    private static func identityProblems(_ json: [String: Any], component: String, _ fail: (String) -> Void) {
        if (json["unique_id"] as? String)?.isEmpty ?? true { fail("no unique_id") }
        if let entityID = json["default_entity_id"] as? String {
            let pieces = entityID.split(separator: ".", omittingEmptySubsequences: false)
            if pieces.count != 2 || pieces[0] != Substring(component) { fail("default_entity_id '\(entityID)' is not in the \(component) domain") }
            if let slug = pieces.last, !isSlug(String(slug)) { fail("default_entity_id '\(entityID)' is not a valid object id") }
        } else {
            fail("no default_entity_id")
        }
        if !(json["name"] is String) { fail("no name") }
        if let category = json["entity_category"] {
            let allowed: Set<String> = ["sensor", "binary_sensor", "event"].contains(component) ? ["diagnostic"] : ["config", "diagnostic"]
            if !allowed.contains(category as? String ?? "") { fail("entity_category '\(category)' not one of \(allowed.sorted())") }
        }

    }

    /// Topics (plain, no wildcards), and what each component needs.
    private static func componentProblems(_ json: [String: Any], component: String, _ fail: (String) -> Void) {
        for key in ["state_topic", "json_attributes_topic", "availability_topic"] {
            if let value = json[key] { checkTopic(value, key, fail) }
        }
        if ["sensor", "binary_sensor", "event"].contains(component), json["state_topic"] == nil { fail("a \(component) needs state_topic") }
        if component == "binary_sensor", let deviceClass = json["device_class"] as? String, !binarySensorClasses.contains(deviceClass) {
            fail("binary_sensor device_class '\(deviceClass)' is not one of Home Assistant's")
        }
        if component == "event" {
            if !((json["event_types"] as? [String]).map { !$0.isEmpty } ?? false) { fail("an event needs a list of event_types") }
            if let deviceClass = json["device_class"] as? String, !["button", "doorbell", "motion"].contains(deviceClass) {
                fail("event device_class '\(deviceClass)' is not button, doorbell or motion")
            }
        }
        if component == "device_tracker" {
            if json["state_topic"] == nil, json["json_attributes_topic"] == nil { fail("a tracker needs state_topic or json_attributes_topic") }
            if let source = json["source_type"], !["gps", "router", "bluetooth", "bluetooth_le"].contains(source as? String ?? "") {
                fail("source_type '\(source)' is not gps, router, bluetooth or bluetooth_le")
            }
        }

    }

    /// Availability: a list of objects with plain topics.
    private static func availabilityProblems(_ json: [String: Any], _ fail: (String) -> Void) {
        if let list = json["availability"] {
            guard let entries = list as? [[String: Any]], !entries.isEmpty else { fail("availability is not a list of objects"); return }
            for entry in entries {
                for key in Set(entry.keys).subtracting(availabilityOptions) { fail("availability: '\(key)' is not documented") }
                if let t = entry["topic"] { checkTopic(t, "availability.topic", fail) } else { fail("availability entry without topic") }
            }
        }
        if let mode = json["availability_mode"], !["all", "any", "latest"].contains(mode as? String ?? "") {
            fail("availability_mode '\(mode)' is not all, any or latest")
        }

    }

    /// Device and origin.
    private static func deviceProblems(_ json: [String: Any], _ fail: (String) -> Void) {
        if let device = json["device"] as? [String: Any] {
            for key in Set(device.keys).subtracting(deviceOptions) { fail("device: '\(key)' is not documented") }
            if device["identifiers"] == nil, device["connections"] == nil { fail("device without identifiers or connections") }
        } else {
            fail("no device")
        }
        if let origin = json["origin"] as? [String: Any] {
            for key in Set(origin.keys).subtracting(originOptions) { fail("origin: '\(key)' is not documented") }
            if !(origin["name"] is String) { fail("origin without name") }
            if let url = origin["support_url"] as? String, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
                fail("origin.support_url '\(url)' is not a URL")
            }
        } else {
            fail("no origin")
        }
    }

    /// Sensor semantics: device class, unit and state class together.
    private static func sensorProblems(_ json: [String: Any], _ fail: (String) -> Void) {
        let unit = json["unit_of_measurement"] as? String
        let stateClass = json["state_class"] as? String
        if let s = stateClass, !stateClasses.contains(s) { fail("state_class '\(s)' is unknown") }
        if let enabled = json["enabled_by_default"], !(enabled is Bool) { fail("enabled_by_default '\(enabled)' is not a boolean") }
        if let expiry = json["expire_after"] {
            if !((expiry as? Int).map { $0 > 0 } ?? false) { fail("expire_after '\(expiry)' is not a positive integer") }
        }
        if let precision = json["suggested_display_precision"], !((precision as? Int).map { $0 >= 0 } ?? false) {
            fail("suggested_display_precision '\(precision)' is not a non-negative integer")
        }
        if let deviceClass = json["device_class"] as? String {
            guard let rule = deviceClasses[deviceClass] else {
                fail("device_class '\(deviceClass)' is not in this checker's table: add it with its documented units")
                return
            }
            if rule.units.isEmpty, let unit { fail("device_class \(deviceClass) takes no unit, got '\(unit)'") }
            if !rule.units.isEmpty, !rule.units.contains(unit ?? "") { fail("device_class \(deviceClass) does not accept unit '\(unit ?? "none")'") }
            if let s = stateClass, !rule.stateClasses.contains(s) { fail("device_class \(deviceClass) does not accept state_class \(s)") }
            if deviceClass == "enum" {
                if !((json["options"] as? [String]).map { !$0.isEmpty } ?? false) { fail("an enum sensor needs a list of options") }
            }
        }
        if json["options"] != nil, json["device_class"] as? String != "enum" { fail("options need device_class enum") }
    }

    /// Home Assistant's object ids: lower-case letters, digits and single underscores inside.
    static func isSlug(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix("_") && !text.hasSuffix("_") && !text.contains("__")
            && text.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" }
    }

    private static func checkTopic(_ value: Any, _ key: String, _ fail: (String) -> Void) {
        guard let topic = value as? String, !topic.isEmpty else { return fail("\(key) is not a topic") }
        if topic.contains("+") || topic.contains("#") { fail("\(key) '\(topic)' has a wildcard") }
    }
}
