import RidegateCore
import RidegateLinux

/// One connected strap: GATT discovery, subscription to 0x2A37 (and battery level where it notifies),
/// the strap's name, body sensor location and battery, then every notification through the decoder.
/// Runs until the link ends and says why.
public struct StrapConnection: Sendable {
    public let strapID: String
    public let bearer: ATTBearer
    public let clock: SystemClock
    public let logger: Logger
    public let transactionTimeout: Double

    public init(strapID: String, bearer: ATTBearer, clock: SystemClock, logger: Logger, transactionTimeout: Double = 30) {
        self.strapID = strapID
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

    private func session(_ client: ATTClient, emit: @escaping @Sendable (SourceEvent) -> Void) async throws(ATTClientError) {
        let mtu = try await client.exchangeMTU()
        let services = try await client.discoverPrimaryServices()
        guard let heartRate = services.first(where: { $0.uuid == .heartRateService }) else {
            throw .malformed("the device has no Heart Rate Service (0x180D)")
        }
        let characteristics = try await client.discoverCharacteristics(of: heartRate)
        guard let measurement = characteristics.first(where: { $0.uuid == .heartRateMeasurement }) else {
            throw .malformed("the Heart Rate Service has no Heart Rate Measurement (0x2A37)")
        }
        guard let cccd = try await client.discoverDescriptors(of: measurement).first(where: { $0.type == .clientCharacteristicConfiguration }) else {
            throw .malformed("Heart Rate Measurement has no Client Characteristic Configuration descriptor")
        }
        // Notifications (0x0001), or indications (0x0002) from a strap that only indicates.
        try await client.write(cccd.handle, measurement.canNotify ? [0x01, 0x00] : [0x02, 0x00])

        var details = StrapDetails()
        if let gap = services.first(where: { $0.uuid == .genericAccess }),
           let name = try? await client.discoverCharacteristics(of: gap).first(where: { $0.uuid == .deviceName }) {
            details.name = (try? await client.read(name.valueHandle)).map { String(decoding: $0, as: UTF8.self) }
        }
        if let location = characteristics.first(where: { $0.uuid == .bodySensorLocation }),
           let value = try? await client.read(location.valueHandle), let code = value.first {
            details.bodyLocation = StrapDetails.bodyLocationName(code)
        }
        var batteryHandle: UInt16?
        if let battery = services.first(where: { $0.uuid == .batteryService }),
           let level = try? await client.discoverCharacteristics(of: battery).first(where: { $0.uuid == .batteryLevel }) {
            batteryHandle = level.valueHandle
            details.batteryPercent = (try? await client.read(level.valueHandle))?.first.map(Int.init)
            if level.canNotify, let d = try? await client.discoverDescriptors(of: level).first(where: { $0.type == .clientCharacteristicConfiguration }) {
                try? await client.write(d.handle, [0x01, 0x00])
            }
        }
        logger.info("strap connected", [("strap.id", strapID), ("strap.name", details.name ?? "?"), ("att.mtu", String(mtu))])
        emit(.strapState(strap: strapID, .connected, at: clock.now()))
        emit(.strapDetails(strap: strapID, details, at: clock.now()))

        for await notification in client.notifications {
            if notification.handle == measurement.valueHandle {
                emit(HeartRateNotification.event(strap: strapID, value: notification.value, at: clock.now()))
            } else if notification.handle == batteryHandle, let level = notification.value.first {
                details.batteryPercent = Int(level)
                emit(.strapDetails(strap: strapID, details, at: clock.now()))
            }
        }
    }
}
