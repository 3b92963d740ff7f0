import Foundation
import RidegateCore
import Testing

/// The discovery payloads use only keys Home Assistant documents for MQTT sensors and device trackers
/// (full names, no abbreviations), and have what each platform requires.
@Suite struct HomeAssistantDiscoveryTests {
    static let sensorKeys: Set<String> = [
        "availability", "availability_mode", "availability_template", "availability_topic", "device", "device_class",
        "enabled_by_default", "encoding", "entity_category", "entity_picture", "expire_after", "force_update", "icon",
        "json_attributes_template", "json_attributes_topic", "last_reset_value_template", "name", "object_id", "options",
        "payload_available", "payload_not_available", "platform", "qos", "state_class", "state_topic",
        "suggested_display_precision", "unique_id", "unit_of_measurement", "value_template", "origin",
    ]
    static let trackerKeys: Set<String> = [
        "availability", "availability_mode", "availability_template", "availability_topic", "device", "icon",
        "json_attributes_template", "json_attributes_topic", "name", "object_id", "payload_available", "payload_home",
        "payload_not_available", "payload_not_home", "payload_reset", "platform", "qos", "source_type", "state_topic",
        "unique_id", "value_template", "origin",
    ]
    static let deviceKeys: Set<String> = [
        "configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model", "model_id", "name",
        "serial_number", "suggested_area", "sw_version", "via_device",
    ]
    static let availabilityKeys: Set<String> = ["payload_available", "payload_not_available", "topic", "value_template"]

    let discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/bike", deviceID: "bike", version: "0.1.0")

    func object(_ p: Publication) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(p.payload.utf8)) as? [String: Any])
    }

    @Test("Gateway sensors and the GPS tracker: documented keys, required keys, availability on the gateway status")
    func gatewayConfigs() throws {
        let configs = discovery.gatewayConfigs()
        #expect(configs.count == 7)
        #expect(Set(configs.map(\.topic)).count == configs.count)
        for p in configs {
            #expect(p.retain && p.absolute)
            let json = try object(p)
            let isTracker = p.topic.hasPrefix("homeassistant/device_tracker/")
            #expect(isTracker || p.topic.hasPrefix("homeassistant/sensor/"))
            #expect(p.topic.hasSuffix("/config"))
            let allowed = isTracker ? Self.trackerKeys : Self.sensorKeys
            #expect(Set(json.keys).isSubset(of: allowed), "\(p.topic): \(Set(json.keys).subtracting(allowed))")
            #expect(json["unique_id"] is String && json["name"] is String)
            if !isTracker { #expect((json["state_topic"] as? String)?.hasPrefix("ridegate/bike/") == true) }
            let device = try #require(json["device"] as? [String: Any])
            #expect(Set(device.keys).isSubset(of: Self.deviceKeys))
            #expect(device["identifiers"] as? [String] == ["ridegate_bike"])
            let availability = try #require(json["availability"] as? [[String: Any]])
            #expect(availability.first?["topic"] as? String == "ridegate/bike/status")
            #expect(availability.allSatisfy { Set($0.keys).isSubset(of: Self.availabilityKeys) })
            #expect(json["availability_mode"] as? String == "all")
        }
        let tracker = try object(try #require(configs.first { $0.topic.contains("device_tracker") }))
        #expect(tracker["source_type"] as? String == "gps")
        #expect(tracker["json_attributes_topic"] as? String == "ridegate/bike/gps")
    }

    @Test("A strap is its own device, reached through the gateway, available only while connected")
    func strapConfigs() throws {
        let p = try #require(discovery.strapConfigs(strapID: "f1f2f3f4f5f6", name: "Polar H10").first)
        let json = try object(p)
        #expect(Set(json.keys).isSubset(of: Self.sensorKeys))
        let device = try #require(json["device"] as? [String: Any])
        #expect(device["via_device"] as? String == "ridegate_bike")
        #expect(device["name"] as? String == "Polar H10")
        let availability = try #require(json["availability"] as? [[String: Any]])
        #expect(availability.count == 2)
        #expect(availability[1]["topic"] as? String == "ridegate/bike/strap/f1f2f3f4f5f6/state")
        #expect(json["device_class"] as? String == "battery")
    }
}
