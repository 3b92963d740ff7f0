/// A BLE sensor announced as part of the bike: what it is, the name its entities carry, what it measures.
public struct AnnouncedSensor: Sendable, Equatable {
    public var sensor: SensorRef
    /// Its own name (the Device Name it reports), or `<kind> <id>`.
    public var name: String
    public var measures: Set<SensorMeasure>

    public init(sensor: SensorRef, name: String, measures: Set<SensorMeasure>) {
        self.sensor = sensor
        self.name = name
        self.measures = measures
    }
}

/// The entities of one BLE sensor, components of the bike's device named after the sensor: its connection, what
/// its features say it measures, its battery.
extension HomeAssistantDiscovery {
    func sensorEntities(_ announced: AnnouncedSensor) -> [Entity] {
        let (sensor, measures, label) = (announced.sensor, announced.measures, announced.name)
        let readings = Topic.sensorReadings(sensor).name
        let state = Topic.sensor(sensor, .state).name
        let connected = sourceAvailability(topic: state, when: "value_json.state == 'connected'")
        let expiry = expiry(0)
        var list: [Entity] = [
            // Off while the sensor is searched for or lost; unavailable (never a stale "on") while the gateway is off.
            Entity("binary_sensor", "connected") { w in
                w.add("name", "\(label) connected")
                stateFields(&w, topic: state, template: Self.onWhen("value_json.state == 'connected'"), icon: "mdi:bluetooth-connect")
                w.add("device_class", "connectivity")
                availability(&w)
            },
        ]
        func reading(_ key: String, _ name: String, _ template: String, unit: String, deviceClass: String?, precision: Int?,
                     icon: String? = nil, enabled: Bool = true) -> Entity {
            Entity("sensor", key) { w in
                w.add("name", "\(label) \(name.prefix(1).lowercased() + name.dropFirst())")
                stateFields(&w, topic: readings, template: template, icon: icon)
                w.add("unit_of_measurement", unit)
                if let deviceClass { w.add("device_class", deviceClass) }
                w.add("state_class", "measurement")
                if let precision { w.add("suggested_display_precision", precision) }
                w.add("expire_after", expiry)
                if !enabled { w.add("enabled_by_default", false) }
                availability(&w, connected)
            }
        }
        if sensor.kind.family == .sensor, measures.contains(.power) {
            // The 3 s average is what a head unit shows; the instantaneous power, a new state every second, is
            // there for whoever enables it.
            list.append(reading("power", "Power", "{{ value_json.power_w }}", unit: "W", deviceClass: "power", precision: nil, enabled: false))
            list.append(reading("power_3s", "Power (3 s)", Self.whole("power_3s_w"), unit: "W", deviceClass: "power", precision: 0))
        }
        if sensor.kind.family == .sensor, measures.contains(.cadence) {
            list.append(reading("cadence", "Cadence", Self.whole("cadence_rpm"), unit: "rpm", deviceClass: nil, precision: 0,
                                icon: "mdi:rotate-right"))
        }
        if sensor.kind.family == .sensor, measures.contains(.wheelSpeed) {
            // With a GPS the wheel speed repeats the speed: off by default then (a recorder row a second for nothing).
            list.append(reading("wheel_speed", "Wheel speed", Self.kilometresPerHour("wheel_speed_mps"), unit: "km/h", deviceClass: "speed",
                                precision: 1, enabled: !features.gps))
        }
        // A kind added by its profile alone: a sensor for each reading the profile names.
        for value in sensor.kind.readings {
            let template = "{{ value_json.\(value.key) if value_json.\(value.key) is number else none }}"
            list.append(reading(value.key, value.name, template, unit: value.unit, deviceClass: value.deviceClass, precision: value.precision))
        }
        list.append(battery(sensor, label: label, connected))
        return list
    }

    private func battery(_ sensor: SensorRef, label: String, _ connected: String) -> Entity {
        Entity("sensor", "battery") { w in
            w.add("name", "\(label) battery")
            stateFields(&w, topic: Topic.sensor(sensor, .info).name, template: "{{ value_json.battery_pct }}")
            w.add("unit_of_measurement", "%")
            w.add("device_class", "battery")
            w.add("state_class", "measurement")
            w.add("entity_category", "diagnostic")
            availability(&w, connected)
        }
    }
}
