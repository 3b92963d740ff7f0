import RidegateCore

/// How a sensor is found and reached: the seam between the sensor source's logic (selection, reconnect,
/// backoff) and the radio. On a Pi it is the kernel (management discovery, L2CAP); in tests, simulated
/// peripherals on socketpairs that come and go.
public protocol SensorLink: Sendable {
    /// Scans until an advertisement is `wanted`; with `collectFor`, keeps listening that long and returns
    /// the strongest match (or `preferred`, if it is among them).
    func find(_ wanted: @escaping @Sendable (BluetoothAddress, AdvertisingData) -> Bool, preferred: BluetoothAddress?,
              collectFor: Double) async throws(BluetoothError) -> FoundSensor
    func connect(_ sensor: FoundSensor) async throws(BluetoothError) -> ATTBearer
}

public struct FoundSensor: Sendable, Equatable {
    public var address: BluetoothAddress
    public var name: String?
    public var rssi: Int

    public init(address: BluetoothAddress, name: String?, rssi: Int) {
        self.address = address
        self.name = name
        self.rssi = rssi
    }
}

/// The kernel's Bluetooth stack: management-interface discovery and an L2CAP LE socket on the ATT channel.
public struct KernelSensorLink: SensorLink {
    public let connectTimeout: Double
    /// Reads the kernel's sockets and times their waits.
    private let loop: EventLoop

    public init(connectTimeout: Double = 10, loop: EventLoop) {
        self.connectTimeout = connectTimeout
        self.loop = loop
    }

    public func find(_ wanted: @escaping @Sendable (BluetoothAddress, AdvertisingData) -> Bool, preferred: BluetoothAddress?,
                     collectFor: Double) async throws(BluetoothError) -> FoundSensor {
        let candidates = Locked<[BluetoothAddress: FoundSensor]>([:])
        let (firstMatch, announce) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let scanner = AdvertisementScanner(loop: loop)
        let result: Result<FoundSensor, BluetoothError> = await withTaskGroup(of: Result<FoundSensor, BluetoothError>?.self) { group in
            group.addTask {
                do throws(BluetoothError) {
                    try await scanner.scan { device in
                        guard wanted(device.address, device.advertising) else { return }
                        let isFirst = candidates.withLock { c -> Bool in
                            c[device.address] = FoundSensor(address: device.address, name: device.advertising.localName, rssi: device.rssi)
                            return c.count == 1
                        }
                        if isFirst { announce.yield() }
                    }
                    return nil
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                // Decide `collectFor` after the first match, so the strongest of several sensors wins.
                for await _ in firstMatch {
                    if collectFor > 0 { await loop.sleep(seconds: collectFor) }
                    let all = candidates.withLock { Array($0.values) }
                    if let p = preferred, let match = all.first(where: { $0.address == p }) { return .success(match) }
                    if let best = all.max(by: { $0.rssi < $1.rssi }) { return .success(best) }
                }
                return nil
            }
            var outcome: Result<FoundSensor, BluetoothError> = .failure(.noAdapter)
            for await r in group {
                if let r {
                    outcome = r
                    break
                }
            }
            group.cancelAll()
            return outcome
        }
        return try result.get()
    }

    public func connect(_ sensor: FoundSensor) async throws(BluetoothError) -> ATTBearer {
        try await L2CAPConnector.connect(to: sensor.address, timeout: connectTimeout, on: loop)
    }
}
