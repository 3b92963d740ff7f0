/// The sun's times and warning, and the gateway's health as diagnostic entities.
extension HomeAssistantDiscovery {
    var sunEntities: [Entity] {
        [
            timestamp("sunrise", "Sunrise", icon: "mdi:weather-sunset-up"),
            timestamp("sunset", "Sunset", icon: "mdi:weather-sunset-down"),
            timestamp("civil_dawn", "Civil dawn", icon: "mdi:weather-sunset-up"),
            timestamp("civil_dusk", "Civil dusk", icon: "mdi:weather-night"),
            Entity("sensor", "time_to_sunset", needs: [.sun]) { w in
                w.add("name", "Time to sunset")
                stateFields(&w, topic: Topic.sun.name, template: "{{ value_json.seconds_to_sunset }}")
                w.add("unit_of_measurement", "s")
                w.add("device_class", "duration")
                availability(&w)
            },
            // On within `sun.warning_lead_min` of sunset: time to turn the lights on, or head home.
            Entity("binary_sensor", "dark_soon", needs: [.sun]) { w in
                w.add("name", "Dark soon")
                stateFields(&w, topic: Topic.sun.name, template: Self.onWhen("value_json.sunset_warning"), icon: "mdi:weather-sunset-down")
                availability(&w)
            },
        ]
    }

    /// Figures from `health` (once a minute): what a maintainer looks at when something is off. Those that
    /// change every minute whatever happens are disabled by default (recorder rows for nothing).
    var healthEntities: [Entity] {
        [
            diagnostic("spool_depth", "Readings waiting for the broker", "{{ value_json.spool_depth }}", stateClass: "measurement",
                       icon: "mdi:tray-full"),
            diagnostic("spool_dropped", "Readings dropped", "{{ value_json.spool_dropped }}", stateClass: "total_increasing",
                       icon: "mdi:tray-remove"),
            diagnostic("broker_connections", "Broker connections", "{{ value_json.mqtt_connects }}", stateClass: "total_increasing",
                       icon: "mdi:lan-connect"),
            diagnostic("sensor_reconnects", "Sensor reconnects", "{{ value_json.strap_reconnects + value_json.sensor_reconnects }}",
                       stateClass: "total_increasing", icon: "mdi:bluetooth-off"),
            diagnostic("gps_time_rejected", "GPS epochs rejected", "{{ value_json.gps_time_rejected }}", stateClass: "total_increasing",
                       icon: "mdi:clock-alert-outline"),
            diagnostic("ride_log_size", "Ride log size", "{{ value_json.ride_log_bytes }}", stateClass: "measurement", icon: "mdi:database",
                       unit: ("B", "data_size"), enabled: false),
            diagnostic("clock_offset", "Clock offset from GPS", "{{ value_json.clock_offset_s }}", stateClass: "measurement",
                       icon: "mdi:clock-outline", unit: ("s", "duration"), enabled: false),
        ]
    }

    private func timestamp(_ key: String, _ name: String, icon: String) -> Entity {
        Entity("sensor", key, needs: [.sun]) { w in
            w.add("name", name)
            stateFields(&w, topic: Topic.sun.name, template: "{{ value_json.\(key) }}", icon: icon)
            w.add("device_class", "timestamp")
            availability(&w)
        }
    }

    /// `unit`: the unit and its device class, where the figure has one.
    private func diagnostic(_ key: String, _ name: String, _ template: String, stateClass: String, icon: String,
                            unit: (symbol: String, deviceClass: String)? = nil, enabled: Bool = true) -> Entity {
        Entity("sensor", key) { w in
            w.add("name", name)
            stateFields(&w, topic: Topic.health.name, template: template, icon: icon)
            if let unit {
                w.add("unit_of_measurement", unit.symbol)
                w.add("device_class", unit.deviceClass)
            }
            w.add("state_class", stateClass)
            w.add("entity_category", "diagnostic")
            if !enabled { w.add("enabled_by_default", false) }
            availability(&w)
        }
    }
}
