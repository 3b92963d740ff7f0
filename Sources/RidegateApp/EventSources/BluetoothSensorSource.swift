import RidegateCore
import RidegateLinux

/// One configured BLE sensor (strap, power meter, speed/cadence sensor): find it, connect, run the GATT
/// session, and when the link drops (out of range, flat battery) report `lost` with the reason and look for
/// it again, backing off 1 s doubling to 10 s between failed attempts so a sensor that drops at once never
/// makes a tight loop. Scanning resumes right after a loss, so a sensor that advertises again is back
/// within seconds. A device another source holds (`claims`) is passed over.
public struct BluetoothSensorSource: EventSource {
    public let name: String
    public let kind: SensorProfile
    public let selector: SensorSelector
    public let wheelMillimetres: Double
    public let link: any SensorLink
    public let claims: SensorClaims
    public let clock: SystemClock
    public let logger: Logger
    /// Remembers the sensor `auto` picked, so it is preferred next time (nil: do not remember).
    public let memory: SensorMemory?
    public let transactionTimeout: Double
    public let retry: Retry

    /// How the source waits between attempts.
    public struct Retry: Sendable {
        public var backoff: ReconnectBackoff
        /// A connection that lasted this long was a good one: the backoff starts over after it.
        public var stableAfter: Double
        /// The wait itself (a test records the delays instead of sleeping through them).
        public var pause: @Sendable (Double) async -> Void
        /// Monotonic seconds, by which a connection's length is judged (a test sets the time it lasted).
        public var now: @Sendable () -> Double

        public init(backoff: ReconnectBackoff, stableAfter: Double, now: @escaping @Sendable () -> Double = SystemClock.monotonicSeconds,
                    pause: @escaping @Sendable (Double) async -> Void) {
            self.backoff = backoff
            self.stableAfter = stableAfter
            self.now = now
            self.pause = pause
        }

        /// 1 s doubling to 10 s, a sleep on `loop`.
        public static func standard(on loop: EventLoop) -> Retry {
            Retry(backoff: ReconnectBackoff(initial: 1, maximum: 10), stableAfter: 30) { seconds in await loop.sleep(seconds: seconds) }
        }
    }

    public init(kind: SensorProfile = .heartRate, selector: SensorSelector, wheelMillimetres: Double = SensorRef.defaultWheelMillimetres,
                link: any SensorLink, claims: SensorClaims = SensorClaims(), clock: SystemClock, logger: Logger,
                memory: SensorMemory? = nil, transactionTimeout: Double = 30, retry: Retry) {
        self.name = kind.family == .strap ? kind.topicFamily : kind.rawValue
        self.kind = kind
        self.selector = selector
        self.wheelMillimetres = wheelMillimetres
        self.link = link
        self.claims = claims
        self.clock = clock
        self.logger = logger
        self.memory = memory
        self.transactionTimeout = transactionTimeout
        self.retry = retry
    }

    func reference(_ address: BluetoothAddress) -> SensorRef {
        SensorRef(kind: kind, id: address.topicID, wheelMillimetres: wheelMillimetres)
    }

    public func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        var backoff = retry.backoff
        var reportedError: String?
        let selector = selector, kind = kind, claims = claims
        let byAddress = if case .address = selector { true } else { false }
        let wanted: @Sendable (BluetoothAddress, AdvertisingData) -> Bool = { address, advertising in
            selector.matches(address: address, advertising: advertising, kind: kind) && !claims.isClaimed(address)
                && (byAddress || !claims.belongsElsewhere(advertising, searchedAs: kind))
        }
        while !Task.isCancelled {
            if case .address(let a) = selector { emit(.sensorState(reference(a), .searching, at: clock.now())) }
            let found: FoundSensor
            do {
                found = try await link.find(wanted, preferred: memory?.recall(), collectFor: selector == .auto ? 2 : 0)
                reportedError = nil
            } catch {
                if Task.isCancelled { return }
                if reportedError != error.description {
                    logger.error("cannot search for \(kind.measures) sensors", [("sensor.selector", selector.description), ("error", error.description)])
                    reportedError = error.description
                }
                await retry.pause(backoff.delay())
                continue
            }
            // Another source may have taken it while this one was choosing.
            guard claims.claim(found.address) else { continue }
            defer { claims.release(found.address) } // at the end of this attempt, however it ends
            let sensor = reference(found.address)
            emit(.sensorState(sensor, .connecting, at: clock.now()))
            logger.info("\(kind.measures) sensor found; connecting", [("sensor.address", found.address.description),
                                                                       ("sensor.name", found.name ?? "?"), ("sensor.rssi", String(found.rssi))])
            let bearer: ATTBearer
            do {
                bearer = try await link.connect(found)
            } catch {
                if Task.isCancelled { return }
                logger.warning("cannot connect to the sensor", [("sensor.address", found.address.description), ("error", error.description)])
                emit(.sensorState(sensor, .lost, reason: error.description, at: clock.now()))
                await retry.pause(backoff.delay())
                continue
            }
            if selector == .auto { memory?.remember(found.address) }
            let connectedAt = retry.now()
            let reason = await SensorConnection(sensor: sensor, bearer: bearer, clock: clock, logger: logger,
                                                transactionTimeout: transactionTimeout).run(emit: emit)
            bearer.disconnect()
            if Task.isCancelled { return }
            logger.warning("sensor lost; searching again", [("sensor.address", found.address.description), ("reason", reason.description)])
            emit(.sensorState(sensor, .lost, reason: reason.description, at: clock.now()))
            if retry.now() - connectedAt > retry.stableAfter { backoff.reset() }
            await retry.pause(backoff.delay())
        }
    }
}

/// The sensor `auto` chose last time, per kind, kept in the state directory (`strap`, `power_meter`,
/// `speed_sensor`).
public struct SensorMemory: Sendable {
    public let file: String

    public init(directory: String, kind: SensorProfile = .heartRate) {
        file = directory + "/" + kind.memoryFile
    }

    public func recall() -> BluetoothAddress? {
        guard let text = try? TextFile.read(file) else { return nil }
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard parts.count == 2 else { return nil }
        return BluetoothAddress(String(parts[0]), kind: parts[1] == "random" ? .random : .public)
    }

    public func remember(_ address: BluetoothAddress) {
        guard recall() != address else { return }
        try? TextFile.replace(file, with: "\(address.description) \(address.kind.rawValue)\n")
    }
}
