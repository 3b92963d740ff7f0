/// The ride's entities: whether a ride is on, its totals from the `ride` summaries, the last finished ride
/// from `rides/last`, and laps as events.
///
/// The totals have no availability: the final summary is retained, so after the ride (the gateway off) they
/// still show what was ridden. Durations are in seconds (HA converts them to min or h on request), distances in km,
/// speeds in km/h (HA converts both on a US install).
extension HomeAssistantDiscovery {
    var rideEntities: [Entity] {
        [
            // Available while the gateway is online: off when the rider ends the ride (the final summary).
            Entity("binary_sensor", "riding", needs: [.gps]) { w in
                w.add("name", "Riding")
                stateFields(&w, topic: Topic.ride.name, template: Self.onWhen("not value_json.final"), icon: "mdi:bike-fast")
                availability(&w)
            },
            total("distance", "Ride distance", Self.kilometres("distance_m"), unit: "km", deviceClass: "distance", precision: 2),
            total("moving_time", "Moving time", "{{ value_json.moving_s }}", unit: "s", deviceClass: "duration",
                  icon: "mdi:timer-outline"),
            total("elapsed_time", "Elapsed time", "{{ value_json.elapsed_s }}", unit: "s", deviceClass: "duration", icon: "mdi:timer-sand"),
            measurement("average_speed", "Average speed", Self.kilometresPerHour("avg_speed_mps"), unit: "km/h", deviceClass: "speed", precision: 1),
            measurement("maximum_speed", "Maximum speed", Self.kilometresPerHour("max_speed_mps"), unit: "km/h", deviceClass: "speed", precision: 1),
            total("climb", "Climb", "{{ value_json.elevation_gain_m }}", unit: "m", deviceClass: "distance", precision: 0, icon: "mdi:elevation-rise"),
            measurement("average_heart_rate", "Average heart rate", "{{ value_json.avg_hr_bpm }}", unit: "bpm",
                        needs: [.gps, .heartRate], icon: "mdi:heart-pulse"),
            measurement("average_power", "Average power", "{{ value_json.avg_power_w }}", unit: "W", deviceClass: "power",
                        precision: 0, needs: [.gps, .power]),
            measurement("normalized_power", "Normalized power", "{{ value_json.np_w }}", unit: "W", deviceClass: "power",
                        precision: 0, needs: [.gps, .power]),
            total("work", "Work", "{{ value_json.work_kj }}", unit: "kJ", deviceClass: "energy", precision: 0, needs: [.gps, .power]),
            // The newest finished ride: its distance, and every field of `rides/last` (the files among them, for
            // an automation that uploads them) as attributes.
            Entity("sensor", "last_ride", needs: [.gps]) { w in
                w.add("name", "Last ride")
                w.add("state_topic", "\(baseTopic)/\(Topic.ridesLast)")
                w.add("value_template", Self.kilometres("distance_m"))
                w.add("json_attributes_topic", "\(baseTopic)/\(Topic.ridesLast)")
                w.add("unit_of_measurement", "km")
                w.add("device_class", "distance")
                w.add("suggested_display_precision", 1)
                w.add("icon", "mdi:map-marker-distance")
            },
            // The last ride's uploads together (queued, uploading, done, failed), each site's state, activity address
            // and reason as attributes.
            Entity("sensor", "ride_upload", needs: [.uploads]) { w in
                w.add("name", "Ride upload")
                w.add("state_topic", "\(baseTopic)/\(Topic.ridesLast)")
                w.add("value_template", "{{ value_json.upload | default('none') }}")
                w.add("json_attributes_topic", "\(baseTopic)/\(Topic.ridesLast)")
                w.add("json_attributes_template", "{{ value_json.uploads | default({}) | tojson }}")
                w.add("device_class", "enum")
                w.add("options", json: "[\"none\",\"queued\",\"uploading\",\"done\",\"failed\"]")
                w.add("icon", "mdi:cloud-upload")
            },
            // A lap ended (the button, or auto-lap): an event whose type is the trigger, with the lap's figures.
            Entity("event", "lap", needs: [.gps, .laps]) { w in
                w.add("name", "Lap")
                w.add("state_topic", "\(baseTopic)/\(Topic.lap)")
                w.add("value_template", "{{ {'event_type': value_json.trigger, 'lap': value_json.lap, 'lap_time_s': value_json.lap_time_s, "
                    + "'lap_moving_s': value_json.lap_moving_s, 'lap_distance_m': value_json.lap_distance_m, "
                    + "'distance_m': value_json.distance_m} | tojson }}")
                w.add("event_types", json: "[\"manual\",\"distance\"]")
                w.add("icon", "mdi:flag-checkered")
                availability(&w)
            },
        ]
    }

    /// A total of the ride so far: grows along the ride, starts again with the next (`total_increasing`).
    private func total(_ key: String, _ name: String, _ template: String, unit: String, deviceClass: String, precision: Int? = nil,
                       needs: [Entity.Feature] = [.gps], icon: String? = nil) -> Entity {
        rideSensor(key, name, template, unit: unit, deviceClass: deviceClass, stateClass: "total_increasing", precision: precision,
                   needs: needs, icon: icon)
    }

    private func measurement(_ key: String, _ name: String, _ template: String, unit: String, deviceClass: String? = nil,
                             precision: Int? = nil, needs: [Entity.Feature] = [.gps], icon: String? = nil) -> Entity {
        rideSensor(key, name, template, unit: unit, deviceClass: deviceClass, stateClass: "measurement", precision: precision,
                   needs: needs, icon: icon)
    }

    private func rideSensor(_ key: String, _ name: String, _ template: String, unit: String, deviceClass: String?, stateClass: String,
                            precision: Int?, needs: [Entity.Feature], icon: String?) -> Entity {
        Entity("sensor", key, needs: needs) { w in
            w.add("name", name)
            stateFields(&w, topic: Topic.ride.name, template: template, icon: icon)
            w.add("unit_of_measurement", unit)
            if let deviceClass { w.add("device_class", deviceClass) }
            w.add("state_class", stateClass)
            if let precision { w.add("suggested_display_precision", precision) }
        }
    }
}
