import RidegateCore

/// Publishes the gateway's messages over MQTT without losing a reading: each reading is stored in the spool
/// before it is sent and leaves it only once the broker acknowledged it; after every connect the backlog is
/// replayed, paced by the acknowledgements; latest-value state is kept in memory and sent again on each
/// connect. The rules (what goes now, what waits behind the replay, what an acknowledgement retires) are the
/// core's `DeliveryState`; this driver applies them to the spool (`ReadingStore`) and to a
/// `MosquittoConnection`, whose events it answers, all on the gateway's event loop.
public final class MQTTPublisher: @unchecked Sendable, MQTTConnectionEvents {
    // @unchecked: the stored state below is touched only on `loop`'s thread; `incoming` is Locked.
    private let connection: MosquittoConnection
    private let topicPrefix: String
    private let logger: Logger
    private let loop: EventLoop
    /// A loop of its own (tools and tests that give none), stopped at shutdown.
    /// Where Home Assistant says it (re)started.
    private let homeAssistantStatusTopic: String?
    private let store: any ReadingStore
    /// What other adapters add to `health`.
    private let healthFields: HealthFields

    // On the loop's thread only:
    private var delivery: DeliveryState
    /// Stored readings acknowledged and not yet removed from the spool (see `acknowledged(_:)`).
    private var acknowledged: [Int64] = []
    /// The connection is flushing a turn of readings (`acceptIncoming`): what it hears meanwhile can wait for the
    /// next turn's transaction.
    private var flushingReadings = false
    /// Readings the broker refused (an MQTT 5 PUBACK with a failure reason code), and when that was said.
    private var refused = RepeatedProblem(interval: 60)
    /// Whether a refused one-shot publication was said (once: they are not sent again).
    private var saidOneShotRefused = false
    /// The paced replay's next turn, when it waits for its pace.
    private var replayTimer: DeferredWork?
    /// Called on the loop once the broker has answered every one-shot publication.
    public var oneShotsDelivered: (@Sendable () -> Void)?

    /// Publications waiting for the loop's next `acceptIncoming`.
    private let incoming = Locked<[Publication]>([])

    /// Most readings in flight at once while replaying.
    public let replayWindow: Int

    public init(settings: MQTTSettings, topicPrefix: String, store: any ReadingStore = MemoryReadingStore(),
                replayWindow: Int = 100, replayRate: Double = 0, healthFields: HealthFields = HealthFields(), loop: EventLoop,
                logger: Logger) throws(MQTTError) {
        self.loop = loop
        // libmosquitto's own window (for every QoS 1/2 message, retained state too) stays above the replay's.
        connection = try MosquittoConnection(settings: settings, maxInFlight: replayWindow + 20, loop: self.loop, logger: logger)
        self.topicPrefix = topicPrefix
        homeAssistantStatusTopic = settings.homeAssistantStatusTopic
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

    /// A read's acknowledgements leave the spool together, in one transaction. A refused reading goes too,
    /// counted and said: the broker would refuse it again at every replay.
    ///
    /// While live readings flow, what a turn's flush hears (the PUBACKs that came since the last flush) leaves with
    /// the next turn's readings, in their transaction: one SQLite commit per turn, not two. Heard at any other time (a replay
    /// paced by them, the connection's sweep when no reading came, a stop), they leave at once.
    func acknowledged(_ acknowledgements: [MQTTAcknowledgement]) {
        for answer in acknowledgements {
            if delivery.isOneShot(messageID: answer.messageID) {
                if let refusal = answer.refusal { sayOneShotRefused(refusal) }
                if delivery.acknowledgedOneShot(messageID: answer.messageID) { oneShotsDelivered?() }
                continue
            }
            if let refusal = answer.refusal { say(refusal) }
            if let id = delivery.acknowledged(messageID: answer.messageID) { acknowledged.append(id) }
        }
        guard !acknowledged.isEmpty, !(flushingReadings && delivery.sendsNewReadingsAtOnce) else { return }
        retirePending()
        if !delivery.sendsNewReadingsAtOnce { continueReplay() }
    }

    /// Home Assistant restarted (its birth message): announce the discovery configs again.
    func received(topic: String, payload: String) {
        guard topic == homeAssistantStatusTopic, payload == "online" else { return }
        let announcements = delivery.discoveryAnnouncements
        logger.info("Home Assistant is online; announcing discovery again", [("mqtt.configs", String(announcements.count))])
        for p in announcements { send(p) }
    }

    func attemptFailed(reason: String) {} // said by the connection

    /// A one-shot message refused (clearing an earlier release's discovery config, against an ACL): said once,
    /// never sent again.
    private func sayOneShotRefused(_ refusal: MQTTRefusal) {
        guard !saidOneShotRefused else { return }
        saidOneShotRefused = true
        logger.warning("the broker refused to clear an earlier release's Home Assistant discovery config; it is not tried again", [
            ("mqtt.topic", refusal.topic), ("mqtt.reason", refusal.reason),
            ("mqtt.fix", "clear it with a client the ACL allows (an empty retained message), or leave it if Home Assistant never saw it"),
        ])
    }

    /// Says (at once, then once a minute with the count) which topic the broker refused and why.
    private func say(_ refusal: MQTTRefusal) {
        guard let count = refused.occurred(at: SystemClock.monotonicSeconds()) else { return }
        logger.warning("the broker refused a reading; it is dropped and counted on health (mqtt_refused)", [
            ("mqtt.topic", refusal.topic), ("mqtt.reason", refusal.reason), ("mqtt.refused", String(count)),
            ("mqtt.fix", "check what the broker allows this client (its ACL for mqtt.username or the client id)"),
        ])
    }
}

/// Publishing: readings stored before they are sent (one transaction per turn), latest-value state kept in
/// memory, and the backlog replayed at the pace of the broker's acknowledgements.
extension MQTTPublisher {
    /// Stores and sends a reading, or keeps the newest retained state; never blocks the caller. What is
    /// published in one turn of the loop is taken in one step: its readings stored in one transaction.
    public func publish(_ publication: Publication) {
        let first = incoming.withLock { waiting -> Bool in
            waiting.append(publication)
            return waiting.count == 1
        }
        if first { loop.execute { [self] in acceptIncoming() } }
    }

    private func acceptIncoming() {
        let batch = incoming.withLock { waiting -> [Publication] in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        // The acknowledgements heard at the last turn's flush leave the spool in this turn's transaction.
        let readings = batch.filter(Self.isStored)
        var ids: [Int64] = []
        do {
            ids = try store.append(
                readings.map { NewReading(topic: $0.topic, payload: $0.payload, qos: $0.qos, sequence: $0.sequence, retain: $0.retain) },
                                   removing: acknowledged)
            acknowledged.removeAll(keepingCapacity: true)
        } catch {
            logger.error("cannot store readings; sending them without a safety net", [("error", "\(error)"), ("mqtt.readings", String(readings.count))])
        }
        var stored = ids.makeIterator()
        for publication in batch {
            if publication.oneShot {
                delivery.keepOneShot(publication)
                if delivery.online { sendOneShot(publication) }
            } else if Self.isStored(publication) {
                if let id = stored.next() {
                    guard delivery.sendsNewReadingsAtOnce else {
                        delivery.heldBehindReplay()
                        continue
                    }
                    sendStored(StoredReading(id: id, topic: publication.topic, payload: publication.payload, qos: publication.qos,
                                             retain: publication.retain))
                } else if delivery.online {
                    send(publication)
                }
            } else {
                acceptState(publication)
            }
        }
        flushingReadings = true
        connection.flush()
        flushingReadings = false
    }

    /// Readings (QoS 1 or 2, not `health`) wait in the spool until acknowledged; so does a ride's record that is
    /// also state (the final `ride` summary, `rides/last`: retained), so a stop while the broker is away delivers it
    /// at the next start. The rest is latest-value state, kept in memory.
    private static func isStored(_ p: Publication) -> Bool {
        p.topic != Topic.health.name && p.qos > 0 && (!p.retain || Topic.isRideRecord(p.topic))
    }

    private func acceptState(_ publication: Publication) {
        if publication.topic == Topic.health.name {
            let completed = completedHealth(publication)
            delivery.keepRetained(completed)
            if delivery.online { send(completed) }
            return
        }
        if publication.retain || publication.qos == 0 {
            // Not spooled (latest-value state such as `sun`): its seq is kept on its own.
            if let seq = publication.sequence {
                do {
                    try store.save(sequence: seq, for: publication.topic)
                } catch {
                    logger.error("cannot keep a topic's sequence number", [("mqtt.topic", publication.topic), ("error", "\(error)")])
                }
            }
            if publication.retain { delivery.keepRetained(publication) }
            if delivery.online { send(publication) }
        }
    }

    /// The gateway's `health`, completed with what only the connection knows.
    private func completedHealth(_ health: Publication) -> Publication {
        guard var json = JSONObjectWriter(extending: health.payload) else { return health }
        // Acknowledged readings waiting to leave with the next ones are delivered: not counted.
        json.add("spool_depth", max(0, Int(store.depth()) - acknowledged.count))
        json.add("spool_dropped", Int(store.dropped))
        json.add("spool_mode", store.mode)
        json.add("spool_recoveries", store.recoveries)
        json.add("mqtt_connects", delivery.connects)
        json.add("mqtt_refused", refused.total)
        let broker = connection.broker
        json.add("mqtt_broker", "\(broker.host):\(broker.port)")
        json.add("replayed", delivery.replayedCount)
        healthFields.add(to: &json)
        var completed = health
        completed.payload = json.finish()
        return completed
    }

    /// Readings waiting for the broker, and readings dropped because the store was full.
    public func backlog() async -> (depth: Int64, dropped: Int64, connects: Int, replayed: Int) {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                connection.flush() // what the broker answered meanwhile, retired (`acknowledged(_:)`)
                continuation.resume(returning: (store.depth(), store.dropped, delivery.connects, delivery.replayedCount))
            }
        }
    }

    private func send(_ p: Publication) {
        connection.publish(topic: p.absolute ? p.topic : topicPrefix + "/" + p.topic, payload: p.payload, qos: p.qos, retain: p.retain)
    }

    private func sendOneShot(_ p: Publication) {
        // Awaited: `oneShotsDelivered` waits for the broker's answers.
        if let mid = connection.publish(topic: p.topic, payload: p.payload, qos: p.qos, retain: p.retain, answer: .soon) {
            delivery.sentOneShot(messageID: mid)
        }
    }

    private func sendStored(_ reading: StoredReading) {
        // A replay is paced by the acknowledgements: it needs them soon. A live reading's can wait for the next turn.
        let answer: AnswerNeeded = delivery.sendsNewReadingsAtOnce ? .whenConvenient : .soon
        if let mid = connection.publish(topic: topicPrefix + "/" + reading.topic, payload: reading.payload, qos: reading.qos,
                                        retain: reading.retain, answer: answer) {
            delivery.sent(messageID: mid, storedID: reading.id)
        }
    }

    /// Sends the next part of the backlog, as far as the replay window and pace allow; called again as
    /// acknowledgements arrive and, while the pace holds it back, by a timer.
    private func continueReplay() {
        let now = SystemClock.monotonicSeconds()
        guard let request = delivery.replayRequest(at: now) else {
            if replayTimer == nil, let wait = delivery.secondsUntilReplay(at: now) {
                replayTimer = loop.execute(after: wait) { [self] in
                    replayTimer = nil
                    continueReplay()
                    connection.flush()
                }
            }
            return
        }
        let batch: [StoredReading]
        do {
            batch = try store.pending(after: request.after, limit: request.limit)
        } catch {
            // Not "nothing pending": the backlog stays, and the next acknowledgement or connection tries again.
            logger.error("cannot read the spool's backlog", [("error", error.description)])
            return
        }
        let toSend = delivery.replay(batch, asked: request.limit, at: now)
        if !delivery.replaying, delivery.replayedCount > 0 {
            logger.info("backlog delivered", [("mqtt.replayed", String(delivery.replayedCount))])
        }
        for reading in toSend { sendStored(reading) }
    }

    /// Removes the acknowledged readings still in the spool: when no reading's transaction takes them along
    /// (`acknowledged(_:)`), before the spool's depth is read or a replay starts from it, at the stop. So an
    /// acknowledged reading stays stored at most until one of those; a crash meanwhile sends it again (same seq).
    private func retirePending() {
        guard !acknowledged.isEmpty else { return }
        let ids = acknowledged
        acknowledged.removeAll(keepingCapacity: true)
        do {
            try store.remove(ids)
        } catch {
            // Delivered anyway: at worst they are sent again after a restart (same seq: subscribers see a duplicate).
            logger.error("cannot remove acknowledged readings from the spool", [("error", "\(error)"), ("mqtt.readings", String(ids.count))])
        }
    }
}
