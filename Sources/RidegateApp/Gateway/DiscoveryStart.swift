import Glibc
import RidegateCore
import RidegateLinux

/// Home Assistant discovery at the daemon's start: the sensors an earlier run announced (kept while the
/// configuration has their kind, removed once when it no longer does) and, for a state directory an earlier
/// release used without recording the device-based layout, that release's per-entity configs to clear once.
/// A fresh install records the layout at once and never writes the old topics.
package struct DiscoveryStart {
    let record: DiscoveryRecord
    let configuredKinds: Set<SensorProfile>
    /// Clear an earlier release's configs before announcing.
    let migrates: Bool

    package struct Prepared {
        var remembered: [AnnouncedSensor]
        var forgotten: [AnnouncedSensor]
        var legacySensors: [SensorRef]?
    }

    /// nil when discovery is off. Looks at the state directory before the spool is opened. `kinds`: the sensor
    /// kinds that ride along, where the configuration does not say (the demo's simulated ones).
    package init?(config: GatewayConfig, kinds: Set<SensorProfile>? = nil) {
        guard config.mqtt.homeAssistantDiscovery else { return nil }
        record = DiscoveryRecord(directory: config.stateDirectory)
        configuredKinds = kinds ?? Set(config.bluetoothSensors.map(\.kind))
        migrates = !record.isDeviceLayout && record.hasEarlierState
    }

    /// What the core announces first; `sequences`: the seq store, whose topics name the sensors an earlier
    /// release may have announced.
    package func prepare(sequences: [String: Int], logger: Logger) -> Prepared {
        let announced = record.announcedSensors()
        var prepared = Prepared(remembered: announced.filter { configuredKinds.contains($0.sensor.kind) },
                                forgotten: announced.filter { !configuredKinds.contains($0.sensor.kind) })
        if migrates {
            prepared.legacySensors = legacySensors(sequences, logger: logger)
            logger.notice("clearing the per-entity Home Assistant discovery configs of an earlier release; entities keep their ids and history",
                          [("mqtt.configs", "per entity"), ("mqtt.sensors", String(prepared.legacySensors?.count ?? 0))])
        } else if !record.isDeviceLayout {
            recordLayout(logger: logger)
        }
        return prepared
    }

    /// Once the clears are delivered (or refused, said by the connection): the layout is recorded, so they are
    /// never sent again.
    package func migrated(logger: Logger) -> (@Sendable () -> Void)? {
        guard migrates else { return nil }
        let start = self
        return { start.recordLayout(logger: logger) }
    }

    private func recordLayout(logger: Logger) {
        do {
            try record.recordDeviceLayout()
        } catch {
            logger.warning("cannot record the Home Assistant discovery layout; the next start clears the old configs again",
                           [("state.directory", record.directory), ("state.error", "\(error)")])
        }
    }

    /// The sensors an earlier release may have announced: those with a topic in the seq store (`strap/<id>/…`,
    /// `sensor/<id>/…`: a power meter's or speed sensor's readings), those `auto` remembered, and every sensor the
    /// ride log saw ride (a strap's readings go out on `heart_rate`, without its id).
    func legacySensors(_ sequences: [String: Int], logger: Logger) -> [SensorRef] {
        var found: [String: SensorRef] = [:]
        func add(_ sensor: SensorRef) { found["\(sensor.kind.rawValue) \(sensor.id)"] = sensor }
        for topic in sequences.keys {
            let parts = topic.split(separator: "/")
            guard parts.count >= 3 else { continue }
            for kind in SensorProfile.builtIn where kind.topicFamily == parts[0] { add(SensorRef(kind: kind, id: String(parts[1]))) }
        }
        for kind in SensorProfile.builtIn {
            if let address = SensorMemory(directory: record.directory, kind: kind).recall() { add(SensorRef(kind: kind, id: address.topicID)) }
        }
        rideLogSensors(logger: logger).forEach(add)
        return found.keys.sorted().compactMap { found[$0] }
    }

    /// Every sensor in the ride log's rides (none without a ride log).
    private func rideLogSensors(logger: Logger) -> [SensorRef] {
        let path = GatewayAssembly.rideLogPath(record.directory)
        guard access(path, F_OK) == 0 else { return [] }
        do {
            let rides = try SQLiteRideStore(path: path, readOnly: true)
            return try rides.rides().flatMap { ride throws(SQLiteFileError) in
                try rides.devices(ride: ride.id).map { SensorRef(kind: $0.kind, id: $0.sensorID) }
            }
        } catch {
            logger.notice("cannot read the ride log's sensors; their earlier discovery configs may stay on the broker",
                          [("state.directory", record.directory), ("error", "\(error)")])
            return []
        }
    }
}
