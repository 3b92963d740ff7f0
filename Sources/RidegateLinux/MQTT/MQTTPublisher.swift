import RidegateCore

/// Publishes the gateway's messages over MQTT without losing a reading: each reading is stored in the spool
/// before it is sent and leaves it only once the broker acknowledged it; after every connect the backlog is
/// replayed, paced by the acknowledgements; latest-value state is kept in memory and sent again on each
/// connect. The rules (what goes now, what waits behind the replay, what an acknowledgement retires) are the
/// core's `DeliveryState`; this driver applies them to the spool (`ReadingStore`) and to a
/// `MosquittoConnection`, whose events it answers, all on the gateway's event loop.
public final class MQTTPublisher: @unchecked Sendable, MQTTConnectionEvents {
    // @unchecked: the stored state below is touched only on `loop`'s thread; `incoming` is Locked.
    let connection: MosquittoConnection
    let topicPrefix: String
    let logger: Logger
    let loop: EventLoop
    /// A loop of its own (tools and tests that give none), stopped at shutdown.
    let ownsLoop: Bool
    let store: any ReadingStore
    /// What other adapters add to `health`.
    let healthFields: HealthFields

    // On the loop's thread only:
    var delivery: DeliveryState
    /// Stored readings acknowledged and not yet removed from the spool (see `retireAcknowledged`).
    var acknowledged: [Int64] = []
    /// Readings the broker refused (an MQTT 5 PUBACK with a failure reason code), and when that was said.
    var refused = RepeatedProblem(interval: 60)
    /// Whether a refused one-shot publication was said (once: they are not sent again).
    var saidOneShotRefused = false
    /// The paced replay's next turn, when it waits for its pace.
    var replayTimer: DeferredWork?
    /// Called on the loop once the broker has answered every one-shot publication.
    public var oneShotsDelivered: (@Sendable () -> Void)?

    /// Publications waiting for the loop's next `acceptIncoming`.
    let incoming = Locked<[Publication]>([])

    /// Most readings in flight at once while replaying.
    public let replayWindow: Int

    public init(settings: MQTTSettings, topicPrefix: String, store: any ReadingStore = MemoryReadingStore(),
                replayWindow: Int = 100, replayRate: Double = 0, healthFields: HealthFields = HealthFields(), loop: EventLoop? = nil,
                logger: Logger) throws(MQTTError) {
        if let loop = loop ?? EventLoop.current {
            self.loop = loop
            ownsLoop = false
        } else {
            do {
                self.loop = try EventLoop()
            } catch {
                throw MQTTError(operation: "new", code: error.errno.rawValue, detail: "cannot start an event loop: \(error)")
            }
            ownsLoop = true
        }
        // libmosquitto's own window (for every QoS 1/2 message, retained state too) stays above the replay's.
        connection = try MosquittoConnection(settings: settings, maxInFlight: replayWindow + 20, loop: self.loop, logger: logger)
        self.topicPrefix = topicPrefix
        self.logger = logger
        self.store = store
        self.healthFields = healthFields
        self.replayWindow = replayWindow
        delivery = DeliveryState(replayWindow: replayWindow, replayRate: replayRate)
        connection.events = self
    }

    /// Starts connecting in the background and returns at once (see `MosquittoConnection.start`).
    public func start() throws(MQTTError) {
        connection.start()
    }

    public var isConnected: Bool { connection.isConnected }

    /// Why the last connection attempt failed, in words (nil while connected or before any attempt).
    public var lastFailure: String? { connection.lastFailure }

    /// Waits until connected, or `timeout` seconds; with `untilFirstFailure` (a one-off probe such as `ridegate
    /// doctor`), no longer than the first failed attempt, whose reason is then `lastFailure`.
    public func waitUntilConnected(timeout: Double, untilFirstFailure: Bool = false) async -> Bool {
        await connection.waitUntilConnected(timeout: timeout, untilFirstFailure: untilFirstFailure)
    }

    /// The orderly stop: the retained `offline` status acknowledged (up to `timeout` seconds), the connection
    /// closed, the acknowledged readings retired; what is still stored waits for the next start.
    public func shutdown(timeout: Double = 1.5) async {
        await connection.close(offlineTimeout: timeout)
        let depth = await withCheckedContinuation { (done: CheckedContinuation<Int64, Never>) in
            loop.execute { [self] in done.resume(returning: store.depth()) }
        }
        if depth > 0 {
            logger.notice("readings kept for the next connection", [("mqtt.spool_depth", String(depth))])
        }
        if ownsLoop { loop.stop() }
    }

    // MARK: the connection's events, on the loop

    func connectionAccepted() {
        let retained = delivery.connected(newestStoredID: store.lastID(), at: SystemClock.monotonicSeconds())
        let broker = connection.broker
        logger.info(delivery.connects == 1 ? "connected to broker" : "reconnected to broker",
                    [("mqtt.broker", "\(broker.host):\(broker.port)"), ("mqtt.spool_depth", String(store.depth()))])
        for p in retained { p.oneShot ? sendOneShot(p) : send(p) }
        continueReplay()
    }

    func connectionEnded() {
        // The next connection's replay starts from the spool: what this one delivered must not be in it.
        retirePending()
        delivery.disconnected()
    }

    /// Retired together after the read (`retireAcknowledged`): one spool transaction per turn. A refused reading
    /// goes too, counted and said: the broker would refuse it again at every replay.
    func acknowledged(messageID: Int32, refusal: MQTTRefusal?) {
        if delivery.isOneShot(messageID: messageID) {
            if let refusal { sayOneShotRefused(refusal) }
            if delivery.acknowledgedOneShot(messageID: messageID) { oneShotsDelivered?() }
            return
        }
        if let refusal { say(refusal) }
        if let id = delivery.acknowledged(messageID: messageID) { acknowledged.append(id) }
    }

    func acknowledgementsRead() {
        retireAcknowledged()
    }

    func connectionIdle() {
        retirePending() // what no reading's transaction will take along
    }

    /// Home Assistant restarted (its birth message): announce the discovery configs again.
    func received(payload: String) {
        guard payload == "online" else { return }
        let announcements = delivery.discoveryAnnouncements
        logger.info("Home Assistant is online; announcing discovery again", [("mqtt.configs", String(announcements.count))])
        for p in announcements { send(p) }
    }

    var acknowledgementsMayWait: Bool { delivery.sendsNewReadingsAtOnce }

    /// A one-shot message refused (clearing an earlier release's discovery config, against an ACL): said once,
    /// never sent again.
    func sayOneShotRefused(_ refusal: MQTTRefusal) {
        guard !saidOneShotRefused else { return }
        saidOneShotRefused = true
        logger.warning("the broker refused to clear an earlier release's Home Assistant discovery config; it is not tried again", [
            ("mqtt.topic", refusal.topic), ("mqtt.reason", refusal.reason),
            ("mqtt.fix", "clear it with a client the ACL allows (an empty retained message), or leave it if Home Assistant never saw it"),
        ])
    }

    /// Says (at once, then once a minute with the count) which topic the broker refused and why.
    func say(_ refusal: MQTTRefusal) {
        guard let count = refused.occurred(at: SystemClock.monotonicSeconds()) else { return }
        logger.warning("the broker refused a reading; it is dropped and counted on health (mqtt_refused)", [
            ("mqtt.topic", refusal.topic), ("mqtt.reason", refusal.reason), ("mqtt.refused", String(count)),
            ("mqtt.fix", "check what the broker allows this client (its ACL for mqtt.username or the client id)"),
        ])
    }
}
