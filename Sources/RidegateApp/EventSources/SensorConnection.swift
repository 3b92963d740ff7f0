import RidegateCore
import RidegateLinux

/// One connected sensor (strap, power meter, speed/cadence sensor): GATT discovery, subscription to every
/// measurement it carries (0x2A37, 0x2A5B, 0x2A63; battery level where it notifies),
/// the device's name, where it sits, what it measures (feature characteristics), battery, then every
/// notification through its decoder. Runs until the link ends and says why.
public struct SensorConnection: Sendable {
    public let sensor: SensorRef
    public let bearer: ATTBearer
    public let clock: SystemClock
    public let logger: Logger
    public let transactionTimeout: Double

    public init(sensor: SensorRef, bearer: ATTBearer, clock: SystemClock, logger: Logger, transactionTimeout: Double = 30) {
        self.sensor = sensor
        self.bearer = bearer
        self.clock = clock
        self.logger = logger
        self.transactionTimeout = transactionTimeout
    }

    public func run(emit: @escaping @Sendable (SourceEvent) -> Void) async -> ATTClientError {
        let client = ATTClient(bearer: bearer, transactionTimeout: transactionTimeout)
        return await withTaskGroup(of: ATTClientError?.self) { group in
            group.addTask { await client.run() }
            group.addTask {
                do throws(ATTClientError) {
                    try await session(client, emit: emit)
                    return nil // notifications ended: the link is gone; run() says why
                } catch {
                    bearer.disconnect()
                    return error
                }
            }
            var reason: ATTClientError = .disconnected
            var first = true
            for await result in group {
                // The session's own error (pairing, timeout) explains more than the link's end.
                if let result, first || reason == .disconnected { reason = result }
                first = false
            }
            return reason
        }
    }

    /// The measurements a sensor may carry, each in its service: one connection serves them all (a power
    /// meter that also exposes CSC, a strap that is also a footpod).
    var measurements: [SensorProfile] { SensorProfile.builtIn + (SensorProfile.builtIn.contains(sensor.kind) ? [] : [sensor.kind]) }

    private func session(_ client: ATTClient, emit: @escaping @Sendable (SourceEvent) -> Void) async throws(ATTClientError) {
        let mtu = try await client.exchangeMTU()
        let services = try await client.discoverPrimaryServices()
        let subscription = try await subscribe(client, services: services)
        var details = await readDetails(client, services: services, subscription: subscription)
        let batteryHandle = await subscribeToBattery(client, services: services, details: &details)
        logger.info("sensor connected", [("sensor.id", sensor.id), ("sensor.name", details.name ?? "?"),
                                         ("sensor.measures", details.measures.sorted().map(\.rawValue).joined(separator: ",")), ("att.mtu", String(mtu))])
        emit(.sensorState(sensor, .connected, at: clock.now()))
        emit(.sensorDetails(sensor, details, at: clock.now()))
        await forward(client.notifications, measurements: subscription.handles, batteryHandle: batteryHandle, details: details, emit: emit)
    }

    /// The measurements subscribed to (value handle → characteristic), every characteristic of their services,
    /// and those of the configured kind's service (where its sensor location is).
    private struct Subscription {
        var handles: [UInt16: SensorProfile] = [:]
        var characteristics: [GATTCharacteristic] = []
        var ofKind: [GATTCharacteristic] = []
    }

    /// Subscribes to every measurement the device has, of the kinds ridegate reads.
    private func subscribe(_ client: ATTClient, services: [GATTService]) async throws(ATTClientError) -> Subscription {
        var subscription = Subscription()
        for kind in measurements {
            let serviceUUID = kind.service, characteristicUUID = kind.measurement, name = kind.measurementName
            guard let service = services.first(where: { $0.uuid == serviceUUID }) else { continue }
            let found = try await client.discoverCharacteristics(of: service)
            subscription.characteristics += found
            if serviceUUID == sensor.kind.service { subscription.ofKind = found }
            guard let measurement = found.first(where: { $0.uuid == characteristicUUID }) else {
                throw .malformed("the device's service \(serviceUUID.description) has no \(name)")
            }
            guard let cccd = try await client.discoverDescriptors(of: measurement).first(where: { $0.type == .clientCharacteristicConfiguration })
            else {
                throw .malformed("\(name) has no Client Characteristic Configuration descriptor")
            }
            // Notifications (0x0001), or indications (0x0002) from a sensor that only indicates.
            try await client.write(cccd.handle, measurement.canNotify ? [0x01, 0x00] : [0x02, 0x00])
            subscription.handles[measurement.valueHandle] = kind
        }
        guard !subscription.handles.isEmpty else {
            throw .malformed("the device has none of the services ridegate reads: "
                             + measurements.map { "\($0.measures) (\($0.service.description))" }.joined(separator: ", "))
        }
        return subscription
    }

    /// What the device says of itself: what it measures, its name, where it is worn or mounted, who made it.
    /// Each is optional: a device that will not tell is still read.
    private func readDetails(_ client: ATTClient, services: [GATTService], subscription: Subscription) async -> SensorDetails {
        var details = SensorDetails()
        let characteristics = subscription.characteristics
        details.measures = await measures(client, characteristics: characteristics, subscribed: Set(subscription.handles.values.map(\.measurement)))
        if let gap = services.first(where: { $0.uuid == .genericAccess }),
           let name = try? await client.discoverCharacteristics(of: gap).first(where: { $0.uuid == .deviceName }) {
            details.name = (try? await client.read(name.valueHandle)).map { String(decoding: $0, as: UTF8.self) }
        }
        if let location = characteristics.first(where: { $0.uuid == .bodySensorLocation }),
           let value = try? await client.read(location.valueHandle), let code = value.first {
            details.bodyLocation = SensorDetails.bodyLocationName(code)
        }
        if let location = (subscription.ofKind + characteristics).first(where: { $0.uuid == .sensorLocation }),
           let value = try? await client.read(location.valueHandle), let code = value.first {
            details.sensorLocation = SensorMeasure.sensorLocationName(code)
        }
        if let information = services.first(where: { $0.uuid == .deviceInformationService }),
           let found = try? await client.discoverCharacteristics(of: information) {
            details.manufacturer = await text(client, found.first(where: { $0.uuid == .manufacturerName }))
            details.model = await text(client, found.first(where: { $0.uuid == .modelNumber }))
            details.serialNumber = await text(client, found.first(where: { $0.uuid == .serialNumber }))
        }
        return details
    }

    /// The battery level into `details`, and its value handle when it notifies (subscribed to here).
    private func subscribeToBattery(_ client: ATTClient, services: [GATTService], details: inout SensorDetails) async -> UInt16? {
        guard let battery = services.first(where: { $0.uuid == .batteryService }),
              let level = try? await client.discoverCharacteristics(of: battery).first(where: { $0.uuid == .batteryLevel }) else { return nil }
        details.batteryPercent = (try? await client.read(level.valueHandle))?.first.map(Int.init)
        if level.canNotify, let d = try? await client.discoverDescriptors(of: level).first(where: { $0.type == .clientCharacteristicConfiguration }) {
            try? await client.write(d.handle, [0x01, 0x00])
        }
        return level.valueHandle
    }

    /// Every notification as an event until the link ends: measurements decoded (what cannot be is said,
    /// counted, at most once a minute: a strap with a firmware bug sends one every beat), battery levels as details.
    private func forward(_ notifications: HandoffStream<ATTClient.Notification>, measurements: [UInt16: SensorProfile], batteryHandle: UInt16?,
                         details: SensorDetails, emit: @Sendable (SourceEvent) -> Void) async {
        var details = details
        var malformed = RepeatedProblem(interval: 60)
        var iterator = notifications.makeAsyncIterator()
        // The notifications end without an error when the link ends: why it ended is `run()`'s to say.
        while let notification = try? await iterator.next() {
            if let kind = measurements[notification.handle] {
                let event = kind.decode(sensor, notification.value, clock.now())
                if case .sensorUndecodable(_, let problem, _) = event, let count = malformed.occurred(at: event.receiveTime.monotonicSeconds) {
                    logger.warning("a measurement the sensor sent could not be decoded; it is skipped", [
                        ("sensor", sensor.id), ("error", problem), ("bytes", notification.value.hexString),
                        ("count", String(count)), ("total", String(malformed.total)),
                    ])
                }
                emit(event)
            } else if notification.handle == batteryHandle, let level = notification.value.first {
                details.batteryPercent = Int(level)
                emit(.sensorDetails(sensor, details, at: clock.now()))
            }
        }
    }

    /// What the device measures: heart rate from its service; speed and cadence from CSC Feature (0x2A5C),
    /// power, cadence and wheel speed from Cycling Power Feature (0x2A65). A feature that cannot be read
    /// claims everything its service may carry, and the readings decide.
    private func measures(_ client: ATTClient, characteristics: [GATTCharacteristic], subscribed: Set<BluetoothUUID>) async -> Set<SensorMeasure> {
        var measures: Set<SensorMeasure> = []
        if subscribed.contains(.heartRateMeasurement) { measures.insert(.heartRate) }
        if subscribed.contains(.cscMeasurement) {
            measures.formUnion(SensorMeasure.fromCSCFeature(await read(client, characteristics.first(where: { $0.uuid == .cscFeature }))))
        }
        if subscribed.contains(.cyclingPowerMeasurement) {
            measures.formUnion(SensorMeasure.fromCyclingPowerFeature(
                await read(client, characteristics.first(where: { $0.uuid == .cyclingPowerFeature }))))
        }
        return measures
    }

    /// A UTF-8 string characteristic, trimmed of the NULs some devices pad with; nil when absent or empty.
    private func text(_ client: ATTClient, _ characteristic: GATTCharacteristic?) async -> String? {
        let value = String(decoding: await read(client, characteristic).prefix { $0 != 0 }, as: UTF8.self)
        return value.isEmpty ? nil : value
    }

    /// An optional characteristic's value; empty when it is absent or cannot be read.
    private func read(_ client: ATTClient, _ characteristic: GATTCharacteristic?) async -> [UInt8] {
        guard let characteristic else { return [] }
        return (try? await client.read(characteristic.valueHandle)) ?? []
    }
}
