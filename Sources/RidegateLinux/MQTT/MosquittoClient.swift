import CMosquitto
import Glibc
import RidegateCore

/// An MQTT connection through libmosquitto, driven by the gateway's event loop: the loop watches the
/// connection's socket and calls libmosquitto's read, write and keepalive steps (its "external loop" API),
/// so a reading is written to the socket in the turn that produced it, and its PUBACK is read in the turn
/// of the next reading (see `flush`): while readings flow, acknowledgements wake nothing of their own. No
/// network thread of libmosquitto's; the blocking connect (DNS, TCP, TLS handshake) runs on a thread of its
/// own while the loop leaves the connection alone.
///
/// What is sent when, what an acknowledgement retires and what `replayed` means is `DeliveryState`'s (the
/// core); this adapter stores readings before they are sent, turns libmosquitto's callbacks into its events
/// and does what it answers. The status topic carries a retained `online` on connect and a retained
/// `offline` as the last will and on orderly shutdown.
public final class MosquittoClient: @unchecked Sendable {
    // @unchecked: `handle` and the `Connection` state are touched only on `loop`'s thread, except the
    // blocking (re)connect on its own thread, which runs only while `phase` is `.connecting` (when the loop
    // leaves the handle alone); the few facts other threads read are in `Locked` values.
    private nonisolated(unsafe) let handle: OpaquePointer
    let settings: MQTTSettings
    private let topicPrefix: String
    let logger: Logger
    let loop: EventLoop
    /// A loop of its own (tools and tests that give none), stopped at shutdown.
    private let ownsLoop: Bool
    private let store: any ReadingStore
    /// What other adapters add to `health`.
    private let healthFields: HealthFields
    private let connectedFlag = Locked(false)
    private let stopping = Locked(false)
    /// libmosquitto's last error line (OpenSSL's reasons arrive only there), for the next failure report.
    let transportError = Locked<String?>(nil)
    /// Failed attempts since the last connection: their reasons, which were said, and when.
    let failures = Locked(RepeatedFailures(interval: 60))

    enum Phase {
        /// Not started, or stopped.
        case idle
        /// An attempt runs on its thread (or waits out its backoff): hands off the handle.
        case connecting
        /// The socket is watched by the loop (CONNACK may still be on its way).
        case open(socket: Int32)
    }

    /// The connection's state, on the loop's thread only.
    final class Connection {
        var phase = Phase.idle
        var delivery: DeliveryState
        var backoff: ReconnectBackoff
        /// Monotonic seconds of the last bytes read and written: the keepalive is due `keepalive` after the older.
        var lastRead = 0.0
        var lastWritten = 0.0
        var keepalive: Task<Void, Never>?
        /// The next attempt, waiting out its backoff.
        var nextAttempt: DeferredWork?
        /// When the broker must have answered CONNECT (`connackTimeoutSeconds` after the socket opened).
        var connackDeadline: DeferredWork?
        /// An attempt's thread is in mosquitto_connect; who waits for it to end (shutdown).
        var attemptRunning = false
        var attemptWaiters: [CheckedContinuation<Void, Never>] = []
        /// The offline status's message id at shutdown, and who waits for its acknowledgement.
        var offlineMessage: Int32?
        var offlineAcknowledged: CheckedContinuation<Bool, Never>?
        /// Every topic published retained with a payload (full names), kept only where asked to clear them at
        /// the stop (`MQTTSettings.clearRetainedAtStop`).
        var retainedTopics: Set<String> = []
        /// Who waits for a connection; some (a one-off probe) only until the first attempt fails.
        var connectionWaiters: [(waiter: CheckedContinuation<Void, Never>, untilFirstFailure: Bool)] = []
        /// Stored readings acknowledged and not yet removed from the spool (see `retireAcknowledged`).
        var acknowledged: [Int64] = []
        /// The loop does not wake for the broker's bytes: they are read at the start of the next turn that
        /// publishes, or by `ackSweep` (see `flush`).
        var readsDeferred = false
        var ackSweep: DeferredWork?
        /// Something was published since the last `flush` (libmosquitto writes at once when it can).
        var published = false
        init(delivery: DeliveryState, backoff: ReconnectBackoff) {
            self.delivery = delivery
            self.backoff = backoff
        }
    }

    nonisolated(unsafe) let connection: Connection

    /// Most readings in flight at once while replaying.
    public let replayWindow: Int

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    public init(settings: MQTTSettings, topicPrefix: String, store: any ReadingStore = MemoryReadingStore(),
                replayWindow: Int = 100, healthFields: HealthFields = HealthFields(), loop: EventLoop? = nil, logger: Logger) throws(MQTTError) {
        _ = MosquittoClient.libraryReady
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
        guard let mosq = mosquitto_new(settings.clientID, true, nil) else {
            throw MQTTError(operation: "new", code: errno, detail: "cannot create a client: \(Errno.current)")
        }
        handle = mosq
        self.settings = settings
        self.topicPrefix = topicPrefix
        self.logger = logger
        self.store = store
        self.healthFields = healthFields
        self.replayWindow = replayWindow
        connection = Connection(delivery: DeliveryState(replayWindow: replayWindow),
                                backoff: ReconnectBackoff(initial: Double(settings.reconnectMinSeconds),
                                                          maximum: Double(settings.reconnectMaxSeconds)))
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        try configure(mosq)
    }

    /// libmosquitto formats a line (a malloc and a vsnprintf under a mutex) for every packet while a log
    /// callback is set, and only a connection attempt's errors are wanted (OpenSSL's reasons arrive only
    /// there): it is set for attempts and cleared once connected.
    private static let logErrors: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = { _, context, level, text in
        guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
        Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didLogError(String(cString: text))
    }

    private func configure(_ mosq: OpaquePointer) throws(MQTTError) {
        try settings.apply(to: mosq)
        let offline = Array("offline".utf8)
        if let status = settings.statusTopic { try check(mosquitto_will_set(mosq, status, Int32(offline.count), offline, 1, true), "will") }
        // libmosquitto's own window (for every QoS 1/2 message, retained state too) stays above the replay's.
        try check(mosquitto_max_inflight_messages_set(mosq, UInt32(replayWindow + 20)), "in-flight window")
        mosquitto_log_callback_set(mosq, Self.logErrors)
        mosquitto_connect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didConnect(rc)
        }
        mosquitto_disconnect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            let systemError = errno // the failure's, before anything else changes it
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().connectionEnded(rc, errno: systemError)
        }
        mosquitto_message_callback_set(mosq) { _, context, message in
            guard let context, let message else { return }
            let m = message.pointee
            let payload = m.payloadlen > 0 && m.payload != nil
                ? String(decoding: UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen)), as: UTF8.self) : ""
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didReceive(payload: payload)
        }
        mosquitto_publish_callback_set(mosq) { _, context, mid in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didPublish(mid)
        }
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        try MQTTSettings.check(rc, what)
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// Starts connecting in the background and returns at once; attempts repeat with backoff until the broker
    /// answers, and again whenever the connection is lost.
    ///
    /// Each attempt is the blocking mosquitto_connect, not mosquitto_connect_async: with TLS, libmosquitto
    /// 2.0.21 (Debian trixie, the Pi's) fails the async one at once with MOSQ_ERR_TLS where the blocking call
    /// succeeds (reproduced with a ten-line C client).
    public func start() throws(MQTTError) {
        loop.execute { [self] in attemptConnection(after: 0) }
    }

    /// On the loop: one attempt, `delay` seconds from now (a timer of the loop's: no thread waits it out).
    private func attemptConnection(after delay: Double) {
        guard !stopping.withLock({ $0 }) else { return }
        connection.phase = .connecting
        connection.nextAttempt = loop.execute(after: delay) { [self] in startAttempt() }
    }

    /// On the loop: hands the handle to a thread of its own for the blocking attempt.
    private func startAttempt() {
        connection.nextAttempt = nil
        connection.attemptRunning = true
        do {
            try BlockingThread.start("MQTT connect") { [self] in
                let rc: Int32
                if stopping.withLock({ $0 }) {
                    rc = MOSQ_ERR_NO_CONN.rawValue
                } else {
                    mosquitto_log_callback_set(handle, Self.logErrors)
                    rc = mosquitto_connect(handle, settings.host, Int32(settings.port), Int32(settings.keepaliveSeconds))
                }
                // errno and the log line explain a failure: read them here, where it happened.
                let reason = rc == MOSQ_ERR_SUCCESS.rawValue ? nil : failureReason(rc)
                loop.execute { [self] in attemptEnded(reason) }
            }
        } catch {
            attemptEnded("cannot start the connecting thread: \(error)")
        }
    }

    /// On the loop: the socket is open (the CONNACK comes later, through `readable`), or the attempt failed.
    private func attemptEnded(_ failure: String?) {
        connection.attemptRunning = false
        for waiter in connection.attemptWaiters { waiter.resume() }
        connection.attemptWaiters.removeAll()
        if stopping.withLock({ $0 }) {
            if failure == nil { mosquitto_disconnect(handle) }
            connection.phase = .idle
            return
        }
        if let failure {
            attemptFailed(failure)
            attemptConnection(after: connection.backoff.delay())
            return
        }
        let socket = mosquitto_socket(handle)
        do {
            try FileDescriptor(rawValue: socket).setNonBlocking()
            try loop.watch(socket) { [self] _ in readable() }
        } catch {
            attemptFailed("cannot watch the broker's socket: \(error)")
            mosquitto_disconnect(handle)
            attemptConnection(after: connection.backoff.delay())
            return
        }
        connection.phase = .open(socket: socket)
        connection.connackDeadline = loop.execute(after: Self.connackTimeoutSeconds) { [self] in connackOverdue() }
        let now = SystemClock.monotonicSeconds()
        connection.lastRead = now
        connection.lastWritten = now
        flush()
        scheduleKeepalive()
    }

    /// The loop saw the socket readable (or writable while output waited, or hung up).
    private func readable() {
        guard case .open = connection.phase else { return }
        connection.lastRead = SystemClock.monotonicSeconds()
        // Reads until the socket would block; a failure closes the connection (see `noticeClosed`).
        let rc = mosquitto_loop_read(handle, 1)
        retireAcknowledged()
        noticeClosed(rc)
        flush()
    }

    /// libmosquitto closed the socket (a read, write or keepalive step failed). Usually it says so through the
    /// disconnect callback; a TLS handshake it gives up on (bookworm's 2.0.11, a refused certificate) calls
    /// none, so the socket itself is the witness: without this the client would wait on a closed socket forever.
    private func noticeClosed(_ rc: Int32) {
        let systemError = errno // the failed step's, before anything else changes it
        guard case .open = connection.phase, mosquitto_socket(handle) < 0 else { return }
        connectionEnded(rc == MOSQ_ERR_SUCCESS.rawValue ? MOSQ_ERR_CONN_LOST.rawValue : rc, errno: systemError)
    }

    /// Writes what libmosquitto has queued; what the socket cannot take yet waits for EPOLLOUT.
    ///
    /// While live readings flow, a turn that wrote does not ask to be woken for the answers: the broker's
    /// acknowledgements (a PUBACK a few hundred microseconds later) wait in the socket until the next turn
    /// that publishes reads them first (`collectDeferredReads`), so a 10 Hz GPS costs one wakeup per fix, not
    /// two, and its acknowledgements leave the spool in that turn's transaction. When no such turn comes,
    /// `ackSweep` reads them `acknowledgementDelay` later. A hang-up still wakes the loop at once; so does
    /// anything while connecting, replaying or shutting down, which waits on the broker's answers.
    private func flush() {
        guard case .open(let socket) = connection.phase else { return }
        let wrote = connection.published || mosquitto_want_write(handle)
        connection.published = false
        if mosquitto_want_write(handle) {
            connection.lastWritten = SystemClock.monotonicSeconds()
            noticeClosed(mosquitto_loop_write(handle, 1))
        }
        // The write may have failed and ended the connection.
        guard case .open = connection.phase else { return }
        let deferReads = wrote && connection.delivery.online && connection.delivery.sendsNewReadingsAtOnce
            && connection.offlineMessage == nil && !stopping.withLock({ $0 })
        connection.readsDeferred = deferReads
        connection.ackSweep?.cancel()
        connection.ackSweep = deferReads ? loop.execute(after: Self.acknowledgementDelay) { [self] in sweepAcknowledgements() } : nil
        loop.setInterest(socket, EventLoop.Interest(readable: !deferReads, writable: mosquitto_want_write(handle)))
    }

    /// Longest a deferred acknowledgement waits in the socket when no reading comes to collect it.
    public static let acknowledgementDelay = 2.0

    /// At the start of a turn that publishes: what the broker sent since the last one (its acknowledgements).
    private func collectDeferredReads() {
        guard connection.readsDeferred, case .open = connection.phase else { return }
        noticeClosed(mosquitto_loop_read(handle, 1))
    }

    /// No reading came to collect the acknowledgements: read them now, retire them from the spool (no
    /// reading's transaction will take them along), and wake for the broker again.
    private func sweepAcknowledgements() {
        connection.ackSweep = nil
        guard connection.readsDeferred else { return }
        readable()
        retirePending() // what no reading's transaction will take along
    }

    /// Sleeps until the keepalive is due (no traffic either way for `keepalive` seconds), then lets
    /// libmosquitto ping or, when its ping went unanswered, end the connection. No tick while traffic flows.
    private func scheduleKeepalive() {
        connection.keepalive?.cancel()
        let keepalive = Double(settings.keepaliveSeconds)
        guard keepalive > 0 else { return }
        connection.keepalive = Task(executorPreference: loop) { [weak self] in
            while let self, case .open = self.connection.phase {
                let now = SystemClock.monotonicSeconds()
                var due = min(self.connection.lastRead, self.connection.lastWritten) + keepalive
                // A ping is out and unanswered: libmosquitto gives up on it `keepalive` after sending it.
                if due <= now { due = self.connection.lastWritten + keepalive }
                await self.loop.sleep(seconds: max(1, due - now))
                guard !Task.isCancelled, case .open = self.connection.phase else { return }
                self.retirePending()
                self.noticeClosed(mosquitto_loop_misc(self.handle))
                // misc pinged (the keepalive was due) or found the broker silent too long and closed.
                self.connection.lastWritten = SystemClock.monotonicSeconds()
                self.flush()
            }
        }
    }

    public var isConnected: Bool { connectedFlag.withLock { $0 } }

    /// Waits until connected, or `timeout` seconds; with `untilFirstFailure` (a one-off probe such as `ridegate
    /// doctor`), no longer than the first failed attempt, whose reason is then `lastFailure`.
    public func waitUntilConnected(timeout: Double, untilFirstFailure: Bool = false) async -> Bool {
        _ = await withDeadline(seconds: timeout) { [self] in
            // The deadline cancels the wait; a cancel that comes before the waiter is listed finds `cancelled` set.
            let cancelled = Locked(false)
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    loop.execute { [self] in
                        if connection.delivery.online || cancelled.withLock({ $0 }) {
                            waiter.resume()
                        } else {
                            connection.connectionWaiters.append((waiter, untilFirstFailure))
                        }
                    }
                }
            } onCancel: {
                cancelled.withLock { $0 = true }
                loop.execute { [self] in resumeConnectionWaiters() }
            }
        }
        return isConnected
    }

    /// Stores and sends a reading, or keeps the newest retained state; never blocks the caller. What is
    /// published in one turn of the loop is taken in one step: its readings stored in one transaction.
    public func publish(_ publication: Publication) {
        let first = incoming.withLock { waiting -> Bool in
            waiting.append(publication)
            return waiting.count == 1
        }
        if first { loop.execute { [self] in acceptIncoming() } }
    }

    /// Publications waiting for the loop's next `acceptIncoming`.
    private let incoming = Locked<[Publication]>([])

    private func acceptIncoming() {
        let batch = incoming.withLock { waiting -> [Publication] in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        // The acknowledgements that arrived since the last turn leave the spool in this turn's transaction.
        collectDeferredReads()
        let readings = batch.filter(Self.isStored)
        var ids: [Int64] = []
        do {
            ids = try store.append(readings.map { NewReading(topic: $0.topic, payload: $0.payload, qos: $0.qos, sequence: $0.sequence, retain: $0.retain) },
                                   removing: connection.acknowledged)
            connection.acknowledged.removeAll(keepingCapacity: true)
        } catch {
            logger.error("cannot store readings; sending them without a safety net", [("error", "\(error)"), ("mqtt.readings", String(readings.count))])
        }
        var stored = ids.makeIterator()
        for publication in batch {
            if Self.isStored(publication) {
                if let id = stored.next() {
                    guard connection.delivery.sendsNewReadingsAtOnce else { continue }
                    sendStored(StoredReading(id: id, topic: publication.topic, payload: publication.payload, qos: publication.qos,
                                             retain: publication.retain))
                } else if connection.delivery.online {
                    send(publication)
                }
            } else {
                acceptState(publication)
            }
        }
        flush()
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
            connection.delivery.keepRetained(completed)
            if connection.delivery.online { send(completed) }
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
            if publication.retain { connection.delivery.keepRetained(publication) }
            if connection.delivery.online { send(publication) }
        }
    }

    /// The gateway's `health`, completed with what only the connection knows.
    private func completedHealth(_ health: Publication) -> Publication {
        guard var json = JSONObjectWriter(extending: health.payload) else { return health }
        // Acknowledged readings waiting to leave with the next ones are delivered: not counted.
        json.add("spool_depth", max(0, Int(store.depth()) - connection.acknowledged.count))
        json.add("spool_dropped", Int(store.dropped))
        json.add("spool_mode", store.mode)
        json.add("spool_recoveries", store.recoveries)
        json.add("mqtt_connects", connection.delivery.connects)
        json.add("replayed", connection.delivery.replayedCount)
        healthFields.add(to: &json)
        var completed = health
        completed.payload = json.finish()
        return completed
    }

    /// Readings waiting for the broker, and readings dropped because the store was full.
    public func backlog() async -> (depth: Int64, dropped: Int64, connects: Int, replayed: Int) {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                collectDeferredReads()
                retirePending()
                continuation.resume(returning: (store.depth(), store.dropped, connection.delivery.connects, connection.delivery.replayedCount))
            }
        }
    }

    private func send(_ p: Publication) {
        send(topic: p.absolute ? p.topic : topicPrefix + "/" + p.topic, payload: p.payload, qos: p.qos, retain: p.retain)
    }

    @discardableResult
    private func send(topic full: String, payload: String, qos: Int, retain: Bool, mid: UnsafeMutablePointer<Int32>? = nil) -> Int32 {
        var text = payload
        if retain, settings.clearRetainedAtStop {
            if payload.isEmpty { connection.retainedTopics.remove(full) } else { connection.retainedTopics.insert(full) }
        }
        connection.lastWritten = SystemClock.monotonicSeconds()
        connection.published = true
        let rc = text.withUTF8 { bytes in
            mosquitto_publish(handle, mid, full, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue, rc != MOSQ_ERR_NO_CONN.rawValue {
            // Not a lost connection (that is reported once, by `connectionEnded`): a message the broker will
            // never take, such as one larger than it allows. Stored readings stay stored.
            logger.warning("cannot publish a message", [("mqtt.topic", full), ("mqtt.reason", Self.describe(rc))])
        }
        return rc
    }

    private func sendStored(_ reading: StoredReading) {
        var mid: Int32 = 0
        if send(topic: topicPrefix + "/" + reading.topic, payload: reading.payload, qos: reading.qos, retain: reading.retain, mid: &mid) == MOSQ_ERR_SUCCESS.rawValue {
            connection.delivery.sent(messageID: mid, storedID: reading.id)
        }
    }

    /// Sends the next part of the backlog, as far as the replay window allows; called again as
    /// acknowledgements arrive, so replay is paced by the broker, not by a timer.
    private func continueReplay() {
        guard let request = connection.delivery.replayRequest else { return }
        let batch: [StoredReading]
        do {
            batch = try store.pending(after: request.after, limit: request.limit)
        } catch {
            // Not "nothing pending": the backlog stays, and the next acknowledgement or connection tries again.
            logger.error("cannot read the spool's backlog", [("error", error.description)])
            return
        }
        let toSend = connection.delivery.replay(batch)
        if batch.isEmpty, connection.delivery.replayedCount > 0 {
            logger.info("backlog delivered", [("mqtt.replayed", String(connection.delivery.replayedCount))])
        }
        for reading in toSend { sendStored(reading) }
    }

    /// Publishes the retained `offline` status and waits (up to `timeout` seconds) for the broker's PUBACK,
    /// then disconnects. Part of the orderly shutdown.
    public func shutdown(timeout: Double = 1.5) async {
        if settings.statusTopic != nil {
            let acknowledged = await withDeadline(seconds: timeout) { [self] in
                let cancelled = Locked(false)
                return await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                        loop.execute { [self] in
                            if cancelled.withLock({ $0 }) { continuation.resume(returning: false) } else { publishOffline(continuation) }
                        }
                    }
                } onCancel: {
                    cancelled.withLock { $0 = true }
                    loop.execute { [self] in resumeOffline(false) }
                }
            }
            if case .deadline = acknowledged { logger.warning("broker did not acknowledge the offline status in time") }
        }
        stopping.withLock { $0 = true }
        await callOffAttempts()
        let depth = await withCheckedContinuation { (done: CheckedContinuation<Int64, Never>) in
            loop.execute { [self] in
                connection.keepalive?.cancel()
                connection.connackDeadline?.cancel()
                connection.ackSweep?.cancel()
                connection.ackSweep = nil
                collectDeferredReads()
                connection.readsDeferred = false
                if case .open(let socket) = connection.phase {
                    mosquitto_disconnect(handle)
                    _ = mosquitto_loop_write(handle, 1)
                    loop.unwatch(socket)
                }
                connection.phase = .idle
                connectedFlag.withLock { $0 = false }
                retirePending()
                connection.delivery.disconnected()
                resumeOffline(false)
                done.resume(returning: store.depth())
            }
        }
        if depth > 0 {
            logger.notice("readings kept for the next connection", [("mqtt.spool_depth", String(depth))])
        }
        if ownsLoop { loop.stop() }
    }

    /// On the loop: sends `offline` (retained, QoS 1), or clears every retained topic and the status where
    /// asked, and resumes `acknowledged` on the status's PUBACK, or at once with false when not connected.
    private func publishOffline(_ acknowledged: CheckedContinuation<Bool, Never>) {
        guard connection.delivery.online, let status = settings.statusTopic else {
            acknowledged.resume(returning: false)
            return
        }
        // Where asked (the demo), nothing is left behind: every retained topic is cleared, the status last.
        for topic in connection.retainedTopics.sorted() where topic != status {
            mosquitto_publish(handle, nil, topic, 0, nil, 1, true)
        }
        var mid: Int32 = 0
        let offline = settings.clearRetainedAtStop ? [] : Array("offline".utf8)
        guard mosquitto_publish(handle, &mid, status, Int32(offline.count), offline, 1, true) == MOSQ_ERR_SUCCESS.rawValue else {
            acknowledged.resume(returning: false)
            return
        }
        connection.offlineMessage = mid
        connection.offlineAcknowledged = acknowledged
        flush()
    }

    private func resumeOffline(_ value: Bool) {
        connection.offlineAcknowledged?.resume(returning: value)
        connection.offlineAcknowledged = nil
        connection.offlineMessage = nil
    }

    // MARK: libmosquitto's callbacks: on the loop's thread, inside mosquitto_loop_read/write/misc

    /// The socket opened but CONNECT went unanswered: something listens there that is not an MQTT broker (or one
    /// that expects TLS first). Said as such, then closed and tried again with backoff.
    private func connackOverdue() {
        connection.connackDeadline = nil
        guard case .open = connection.phase, !isConnected else { return }
        attemptFailed("the broker at \(settings.host):\(settings.port) took the connection but did not answer MQTT's CONNECT within "
                      + "\(Int(Self.connackTimeoutSeconds)) s: is an MQTT broker listening on mqtt.port, or does it expect TLS (mqtt.ca_file)?")
        // Ended as a refusal, which `connectionEnded` does not report again; then the socket goes.
        connectionEnded(MOSQ_ERR_CONN_REFUSED.rawValue, errno: 0)
        mosquitto_disconnect(handle)
        _ = mosquitto_loop_write(handle, 1)
    }

    private func didConnect(_ rc: Int32) {
        connection.connackDeadline?.cancel()
        connection.connackDeadline = nil
        guard rc == 0 else {
            let reason = String(cString: mosquitto_connack_string(rc))
            attemptFailed(rc == 4 || rc == 5 ? "the broker refused the credentials (\(reason)): check mqtt.username and mqtt.password_file" : "the broker refused the connection: \(reason)")
            return
        }
        connectedFlag.withLock { $0 = true }
        mosquitto_log_callback_set(handle, nil)
        failures.withLock { $0.succeeded() }
        transportError.withLock { $0 = nil }
        connection.backoff.reset()
        let online = Array("online".utf8)
        if let status = settings.statusTopic { mosquitto_publish(handle, nil, status, Int32(online.count), online, 1, true) }
        if let ha = settings.homeAssistantStatusTopic { mosquitto_subscribe(handle, nil, ha, 1) }
        let retained = connection.delivery.connected(newestStoredID: store.lastID())
        logger.info(connection.delivery.connects == 1 ? "connected to broker" : "reconnected to broker",
                    [("mqtt.broker", "\(settings.host):\(settings.port)"), ("mqtt.spool_depth", String(store.depth()))])
        for p in retained { send(p) }
        continueReplay()
        resumeConnectionWaiters()
    }

    private func resumeConnectionWaiters() {
        for entry in connection.connectionWaiters { entry.waiter.resume() }
        connection.connectionWaiters.removeAll()
    }

    /// An attempt failed: said (`reportFailure`), and the end of the wait for those who wait only that long.
    private func attemptFailed(_ reason: String) {
        reportFailure(reason)
        for entry in connection.connectionWaiters where entry.untilFirstFailure { entry.waiter.resume() }
        connection.connectionWaiters.removeAll { $0.untilFirstFailure }
    }

    /// Home Assistant restarted (its birth message): announce the discovery configs again.
    private func didReceive(payload: String) {
        guard payload == "online" else { return }
        let announcements = connection.delivery.discoveryAnnouncements
        logger.info("Home Assistant is online; announcing discovery again", [("mqtt.configs", String(announcements.count))])
        for p in announcements { send(p) }
    }

    /// The connection closed (libmosquitto closed the socket already): unwatch it and try again later.
    /// `systemError`: the errno of the step that failed (unwatching the closed socket below sets EBADF).
    private func connectionEnded(_ rc: Int32, errno systemError: Int32) {
        guard case .open(let socket) = connection.phase else { return }
        loop.unwatch(socket)
        connection.connackDeadline?.cancel()
        connection.connackDeadline = nil
        connection.keepalive?.cancel()
        connection.keepalive = nil
        connection.ackSweep?.cancel()
        connection.ackSweep = nil
        connection.readsDeferred = false
        // The next connection's replay starts from the spool: what this one delivered must not be in it.
        retirePending()
        let wasConnected = connectedFlag.withLock { was in
            defer { was = false }
            return was
        }
        connection.delivery.disconnected()
        resumeOffline(false)
        if stopping.withLock({ $0 }) {
            connection.phase = .idle
            return
        }
        if wasConnected {
            logger.warning("lost the broker; storing readings and reconnecting with backoff", [("mqtt.reason", failureReason(rc, errno: systemError))])
        } else if rc != MOSQ_ERR_CONN_REFUSED.rawValue {
            // A connection that never came up (a TLS handshake refused after the TCP connect): an attempt
            // failed. (A refused CONNACK was reported by `didConnect`.)
            attemptFailed(failureReason(rc, errno: systemError))
        }
        attemptConnection(after: connection.backoff.delay())
    }

    private func didPublish(_ mid: Int32) {
        if connection.offlineMessage == mid {
            resumeOffline(true)
            return
        }
        // Retired together after the read (`retireAcknowledged`): one spool transaction per turn.
        if let id = connection.delivery.acknowledged(messageID: mid) { connection.acknowledged.append(id) }
    }

    /// After a read: while live readings flow, what the acknowledgements retired leaves the spool with the
    /// next turn's readings, in their transaction (one journal commit per reading instead of two); a replay
    /// retires at once and goes on.
    private func retireAcknowledged() {
        guard !connection.acknowledged.isEmpty, !connection.delivery.sendsNewReadingsAtOnce else { return }
        retirePending()
        continueReplay()
    }

    /// Removes the acknowledged readings still in the spool: when no reading came to take them along (the
    /// acknowledgement sweep, the keepalive's wake), before the spool's depth is read or a replay starts from it, at shutdown. So an
    /// acknowledged reading stays stored at most until one of those; a crash meanwhile sends it again (same seq).
    private func retirePending() {
        guard !connection.acknowledged.isEmpty else { return }
        let ids = connection.acknowledged
        connection.acknowledged.removeAll(keepingCapacity: true)
        do {
            try store.remove(ids)
        } catch {
            // Delivered anyway: at worst they are sent again after a restart (same seq: subscribers see a duplicate).
            logger.error("cannot remove acknowledged readings from the spool", [("error", "\(error)"), ("mqtt.readings", String(ids.count))])
        }
    }

    /// libmosquitto's error lines, kept for the next failure report (every attempt reports its own failure:
    /// the blocking connect's result, or the end of a connection that never came up). A refused certificate
    /// is the line that explains a failed handshake; OpenSSL's later lines of the same attempt do not replace it.
    private func didLogError(_ text: String) {
        transportError.withLock { last in
            if last?.contains("certificate verify failed") != true || text.contains("certificate verify failed") { last = text }
        }
    }

    /// Why the last connection attempt failed, in words (nil while connected or before any attempt).
    public var lastFailure: String? { failures.withLock { $0.lastReason } }
}
