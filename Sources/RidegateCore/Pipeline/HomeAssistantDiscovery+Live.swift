/// The gateway's live entities: the gateway's own connection, heart rate and zone, speed, the GPS and the
/// bike on the map.
extension HomeAssistantDiscovery {
    var liveEntities: [Entity] {
        let gps = sourceAvailability(topic: Topic.gpsState.name, when: "value_json.state == 'ok'")
        let heartRateExpiry = expiry(heartRateInterval)
        let gpsExpiry = expiry(gpsInterval)
        return [
            // From the status topic itself and without availability: off (not unavailable) when the gateway
            // stops or the broker gives its last will, so a card or an automation can use it.
            Entity("binary_sensor", "online") { w in
                w.add("name", "Online")
                w.add("state_topic", "\(baseTopic)/status")
                w.add("payload_on", "online")
                w.add("payload_off", "offline")
                w.add("device_class", "connectivity")
            },
            Entity("sensor", "heart_rate", needs: [.heartRate]) { w in
                w.add("name", "Heart rate")
                stateFields(&w, topic: Topic.heartRate.name, template: "{{ value_json.bpm }}", icon: "mdi:heart-pulse")
                w.add("unit_of_measurement", "bpm")
                w.add("state_class", "measurement")
                w.add("expire_after", heartRateExpiry)
                availability(&w)
            },
            Entity("sensor", "zone", needs: [.heartRate]) { w in
                w.add("name", "Heart-rate zone")
                stateFields(&w, topic: Topic.heartRate.name, template: "{{ value_json.zone }}", icon: "mdi:heart-flash")
                // The zone's colour (as the LED shows it) and how many zones there are, for the ride's Live
                // Activity blueprint; they change only with the zone, so they add no recorder rows of their own.
                w.add("json_attributes_topic", "\(baseTopic)/\(Topic.heartRate.name)")
                w.add("json_attributes_template", zoneAttributesTemplate)
                w.add("state_class", "measurement")
                w.add("expire_after", heartRateExpiry)
                availability(&w)
            },
            Entity("sensor", "speed", needs: [.gps]) { w in
                w.add("name", "Speed")
                stateFields(&w, topic: Topic.gps.name, template: Self.kilometresPerHour("speed_mps"))
                w.add("unit_of_measurement", "km/h")
                w.add("device_class", "speed")
                w.add("state_class", "measurement")
                w.add("suggested_display_precision", 1)
                w.add("expire_after", gpsExpiry)
                availability(&w, gps)
            },
            Entity("sensor", "gps_state", needs: [.gps]) { w in
                w.add("name", "GPS")
                stateFields(&w, topic: Topic.gpsState.name, template: "{{ value_json.state }}", icon: "mdi:crosshairs-gps")
                w.add("device_class", "enum")
                w.add("options", json: "[" + GPSDeviceState.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]")
                w.add("entity_category", "diagnostic")
                availability(&w)
            },
            // No availability: the position is retained and published only with a fix, so while the gateway is
            // off the map keeps showing where the bike was last seen.
            Entity("device_tracker", "position", needs: [.gps]) { w in
                w.add("name", "Position")
                w.add("json_attributes_topic", "\(baseTopic)/\(Topic.position)")
                w.add("source_type", "gps")
                w.add("icon", "mdi:bike")
            },
        ]
    }

    /// The zone sensor's attributes: `colour` (`#rrggbb`, the LED's, none without skin contact) and `zones`.
    private var zoneAttributesTemplate: String {
        let colours = (0...max(heartRateZones, 1)).map { "'\(RGBLEDPatterns.zoneColour($0, of: heartRateZones))'" }
        return "{% set z = value_json.zone %}{{ {'colour': ([" + colours.joined(separator: ",")
            + "][z] | default(none) if z is number else none), 'zones': \(heartRateZones)} | tojson }}"
    }
}
