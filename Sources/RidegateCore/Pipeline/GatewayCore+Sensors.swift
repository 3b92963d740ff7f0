/// The sensors' readings: heart rate (zone, ride totals, the ride log's values), power (3 s and 10 s averages,
/// power zone, cadence and wheel from its crank and wheel data), speed/cadence, and what a sensor says of itself.
extension GatewayCore {
    mutating func heartRate(strap: String, _ measurement: HeartRateMeasurement, at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        contact = measurement.sensorContact
        var effects: [Effect] = []
        var shownZone: Int?
        if measurement.sensorContact != .notDetected, measurement.beatsPerMinute > 0 {
            recorder.heartRate(measurement.beatsPerMinute, at: at.monotonicSeconds)
            effects += sensorPoints(ts: ts, received: at)
            heartRateTotals.add(measurement.beatsPerMinute)
            heartRateZoneTime.add(value: measurement.beatsPerMinute, at: ts.secondsSince1970)
            shownZone = zone.update(value: measurement.beatsPerMinute, at: ts)
        }
        guard admit(Topic.heartRate.name, at: ts, interval: settings.heartRateMinimumInterval) else { return effects }
        let seq = nextSequence(Topic.heartRate.name)
        let payload = Payloads.heartRate(measurement, strap: strap, zone: shownZone, ts: ts, seq: seq, clockTrusted: time.isTrusted)
        return effects + [.publish(Publication(topic: .heartRate, payload: payload, sequence: seq))]
    }

    mutating func power(_ sensor: SensorRef, _ m: CyclingPowerMeasurement, at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        let now = at.monotonicSeconds
        var state = cyclingSensors[sensor.id] ?? CyclingSensorState()
        state.power.add(watts: Double(m.powerWatts), at: now)
        let step = state.update(wheel: m.wheel, crank: m.crank, at: now, circumferenceMillimetres: sensor.wheelMillimetres)
        let averages = (state.power.average(over: 3, at: now), state.power.average(over: 10, at: now))
        cyclingSensors[sensor.id] = state
        ridePower.add(watts: m.powerWatts, cadenceRPM: step.cadence, at: now, time: ts)
        recorder.power(m.powerWatts, at: now)
        powerZoneTime?.add(value: m.powerWatts, at: ts.secondsSince1970)
        // The zone follows the 3 s average: single readings swing by a hundred watts with every pedal stroke.
        var shownZone: Int?
        if powerZone != nil { shownZone = powerZone?.update(value: Int((averages.0 ?? Double(m.powerWatts)).rounded()), at: ts) }
        let effects = cycling(sensor, step, ts: ts, received: at)
        let topic = Topic.sensor(sensor, .power).name
        let seq = nextSequence(topic)
        let payload = Payloads.power(m, averages: averages, zone: shownZone, cadence: step.cadence, wheelSpeed: step.speed, ts: ts,
                                     seq: seq, clockTrusted: time.isTrusted)
        return effects + [.publish(Publication(topic: topic, payload: payload, sequence: seq))]
    }

    mutating func speedCadence(_ sensor: SensorRef, _ m: CyclingSpeedCadenceMeasurement, at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        var state = cyclingSensors[sensor.id] ?? CyclingSensorState()
        let step = state.update(wheel: m.wheel, crank: m.crank, at: at.monotonicSeconds, circumferenceMillimetres: sensor.wheelMillimetres)
        cyclingSensors[sensor.id] = state
        let effects = cycling(sensor, step, ts: ts, received: at)
        let topic = Topic.sensor(sensor, .speedCadence).name
        let seq = nextSequence(topic)
        let payload = Payloads.speedCadence(cadence: step.cadence, wheelSpeed: step.speed, ts: ts, seq: seq, clockTrusted: time.isTrusted)
        return effects + [.publish(Publication(topic: topic, payload: payload, sequence: seq))]
    }

    /// A kind the core has no model of (a profile alone added it): its values published as they came.
    mutating func sensorReading(_ sensor: SensorRef, _ values: [String: Double], at: ReceiveTime) -> [Effect] {
        let ts = time.utc(for: at)
        let topic = Topic.sensorReadings(sensor).name
        let seq = nextSequence(topic)
        let payload = Payloads.sensorReading(values, kind: sensor.kind, ts: ts, seq: seq, clockTrusted: time.isTrusted)
        return [.publish(Publication(topic: topic, payload: payload, sequence: seq))]
    }

    /// A sensor's name, battery and what it measures: its retained `info`, the ride log's device, and Home
    /// Assistant's entities for it (again when it turns out to measure more).
    mutating func sensorDetails(_ sensor: SensorRef, _ details: SensorDetails, at: ReceiveTime) -> [Effect] {
        var json = JSONObjectWriter(capacity: 160)
        json.add("ts", time.utc(for: at).iso8601)
        json.add("name", details.name)
        if sensor.kind == .heartRate { json.add("body_location", details.bodyLocation) }
        if sensor.kind != .heartRate { json.add("location", details.sensorLocation) }
        json.add("battery_pct", details.batteryPercent)
        json.add("manufacturer", details.manufacturer)
        json.add("model", details.model)
        json.add("measures", json: "[" + details.measures.sorted().map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]")
        if sensor.kind != .heartRate { json.add("wheel_mm", sensor.wheelMillimetres, decimals: 0) }
        var effects: [Effect] = [.publish(Publication(topic: .sensor(sensor, .info), payload: json.finish(), retain: true))]
        effects.append(.record(.device(RideDevice(sensorID: sensor.id, kind: sensor.kind, measures: details.measures, name: details.name,
                                                  manufacturer: details.manufacturer, model: details.model, serialNumber: details.serialNumber,
                                                  batteryPercent: details.batteryPercent))))
        let name = details.name ?? HomeAssistantDiscovery.defaultName(sensor)
        if let ha = settings.homeAssistant,
           announcedSensors[sensor].map({ !details.measures.isSubset(of: $0.measures) || $0.name != name }) ?? true {
            let measures = details.measures.union(announcedSensors[sensor]?.measures ?? [])
            announcedSensors[sensor] = AnnouncedSensor(sensor: sensor, name: name, measures: measures)
            effects.append(.publish(ha.deviceConfig(sensors: sortedAnnouncedSensors)))
            effects.append(.rememberAnnouncedSensors(sortedAnnouncedSensors))
        }
        return effects
    }
}
