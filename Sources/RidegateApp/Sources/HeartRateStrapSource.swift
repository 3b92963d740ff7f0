import RidegateCore
import RidegateLinux

/// One configured strap over Bluetooth: find it, connect, run the GATT session, and when the link drops
/// (out of range, flat battery) report `lost` with the reason and look for it again, backing off 1 s
/// doubling to 10 s between failed attempts so a strap that drops at once never makes a tight loop.
/// Scanning resumes right after a loss, so a strap that advertises again is back within seconds.
public struct HeartRateStrapSource: EventSource {
    public let name = "strap"
    public let selector: StrapSelector
    public let link: any StrapLink
    public let clock: SystemClock
    public let logger: Logger
    /// Remembers the strap `auto` picked, so it is preferred next time (nil: do not remember).
    public let memory: StrapMemory?
    public let transactionTimeout: Double
    public let retry: Retry

    /// How the source waits between attempts.
    public struct Retry: Sendable {
        public var backoff: ReconnectBackoff
        /// A connection that lasted this long was a good one: the backoff starts over after it.
        public var stableAfter: Double
        /// The wait itself (a test records the delays instead of sleeping through them).
        public var pause: @Sendable (Double) async -> Void

        public init(backoff: ReconnectBackoff, stableAfter: Double, pause: @escaping @Sendable (Double) async -> Void) {
            self.backoff = backoff
            self.stableAfter = stableAfter
            self.pause = pause
        }

        public static let standard = Retry(backoff: ReconnectBackoff(initial: 1, maximum: 10), stableAfter: 30) { seconds in
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        }
    }

    public init(selector: StrapSelector, link: any StrapLink, clock: SystemClock, logger: Logger, memory: StrapMemory? = nil,
                transactionTimeout: Double = 30, retry: Retry = .standard) {
        self.selector = selector
        self.link = link
        self.clock = clock
        self.logger = logger
        self.memory = memory
        self.transactionTimeout = transactionTimeout
        self.retry = retry
    }

    /// The id a strap is published under before it is found (then its address).
    var pendingID: String {
        switch selector {
        case .address(let a): a.topicID
        case .namePattern, .auto: "searching"
        }
    }

    public func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        var backoff = retry.backoff
        var reportedError: String?
        while !Task.isCancelled {
            if case .address(let a) = selector { emit(.strapState(strap: a.topicID, .searching, at: clock.now())) }
            let found: FoundStrap
            do {
                found = try await link.find(selector, preferred: memory?.recall(), collectFor: selector == .auto ? 2 : 0)
                reportedError = nil
            } catch {
                if Task.isCancelled { return }
                if reportedError != error.description {
                    logger.error("cannot search for straps", [("strap.selector", selector.description), ("error", error.description)])
                    reportedError = error.description
                }
                await retry.pause(backoff.delay())
                continue
            }
            let id = found.address.topicID
            emit(.strapState(strap: id, .connecting, at: clock.now()))
            logger.info("strap found; connecting", [("strap.address", found.address.description), ("strap.name", found.name ?? "?"),
                                                    ("strap.rssi", String(found.rssi))])
            let bearer: ATTBearer
            do {
                bearer = try await link.connect(found)
            } catch {
                if Task.isCancelled { return }
                logger.warning("cannot connect to the strap", [("strap.address", found.address.description), ("error", error.description)])
                emit(.strapState(strap: id, .lost, reason: error.description, at: clock.now()))
                await retry.pause(backoff.delay())
                continue
            }
            if selector == .auto { memory?.remember(found.address) }
            let connectedAt = SystemClock.monotonicSeconds()
            let reason = await SensorConnection(strapID: id, bearer: bearer, clock: clock, logger: logger,
                                               transactionTimeout: transactionTimeout).run(emit: emit)
            bearer.disconnect()
            if Task.isCancelled { return }
            logger.warning("strap lost; searching again", [("strap.address", found.address.description), ("reason", reason.description)])
            emit(.strapState(strap: id, .lost, reason: reason.description, at: clock.now()))
            if SystemClock.monotonicSeconds() - connectedAt > retry.stableAfter { backoff.reset() }
            await retry.pause(backoff.delay())
        }
    }
}

/// The strap `auto` chose last time, kept in the state directory (`strap`).
public struct StrapMemory: Sendable {
    public let file: String

    public init(directory: String) {
        file = directory + "/strap"
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
