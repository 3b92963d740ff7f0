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
    nonisolated(unsafe) let handle: OpaquePointer
    let settings: MQTTSettings
    let topicPrefix: String
    let logger: Logger
    let loop: EventLoop
    /// A loop of its own (tools and tests that give none), stopped at shutdown.
    let ownsLoop: Bool
    let store: any ReadingStore
    /// What other adapters add to `health`.
    let healthFields: HealthFields
    let connectedFlag = Locked(false)
    let stopping = Locked(false)
    /// libmosquitto's last error line (OpenSSL's reasons arrive only there), for the next failure report.
    let transportError = Locked<String?>(nil)
    /// Failed attempts since the last connection: their reasons, which were said, and when.
    let failures = Locked(RepeatedFailures(interval: 60))
    /// The broker tried or in use (of `settings.brokers`); read by the connecting thread too.
    let currentBroker: Locked<BrokerAddress>
    var broker: BrokerAddress { currentBroker.withLock { $0 } }

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
        /// The (full) topics of QoS 1 and 2 messages in flight, by message id: what a refusal names.
        var inFlightTopics: [Int32: String] = [:]
        /// Readings the broker refused (an MQTT 5 PUBACK with a failure reason code), and when that was said.
        var refused = RepeatedProblem(interval: 60)
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

    /// Publications waiting for the loop's next `acceptIncoming`.
    let incoming = Locked<[Publication]>([])

    /// Most readings in flight at once while replaying.
    public let replayWindow: Int

    static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

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
        currentBroker = Locked(BrokerAddress(host: settings.host, port: settings.port))
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
    static let logErrors: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = { _, context, level, text in
        guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
        Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didLogError(String(cString: text))
    }

    func configure(_ mosq: OpaquePointer) throws(MQTTError) {
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
        // The v5 callback, for either protocol: with MQTT 5 a PUBACK carries a reason code (a broker's ACL
        // refusing the topic, a quota), which is not a delivery. With 3.1.1 it is always 0 (docs/mqtt.md).
        mosquitto_publish_v5_callback_set(mosq) { _, context, mid, reason, _ in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didPublish(mid, reason: reason)
        }
    }

    func check(_ rc: Int32, _ what: String) throws(MQTTError) {
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
    ///
    /// Every delay is jittered (`ReconnectBackoff.jittered`), the first too (within half of
    /// `reconnect_min_s`): bikes of a fleet that start or lose the broker together spread their attempts.
    public func start() throws(MQTTError) {
        let first = Double.random(in: 0..<0.5) * Double(settings.reconnectMinSeconds)
        loop.execute { [self] in attemptConnection(after: first) }
    }

    /// The next reconnect delay, jittered.
    func nextDelay() -> Double { connection.backoff.jittered(Double.random(in: 0..<1)) }

    /// On the loop: one attempt, `delay` seconds from now (a timer of the loop's: no thread waits it out).
    func attemptConnection(after delay: Double) {
        guard !stopping.withLock({ $0 }) else { return }
        connection.phase = .connecting
        connection.nextAttempt = loop.execute(after: delay) { [self] in startAttempt() }
    }

    /// On the loop: hands the handle to a thread of its own for the blocking attempt.
    func startAttempt() {
        connection.nextAttempt = nil
        connection.attemptRunning = true
        do {
            try BlockingThread.start("MQTT connect") { [self] in
                let rc: Int32
                if stopping.withLock({ $0 }) {
                    rc = MOSQ_ERR_NO_CONN.rawValue
                } else {
                    mosquitto_log_callback_set(handle, Self.logErrors)
                    let broker = broker
                    rc = mosquitto_connect(handle, broker.host, Int32(broker.port), Int32(settings.keepaliveSeconds))
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
    func attemptEnded(_ failure: String?) {
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
            attemptConnection(after: nextDelay())
            return
        }
        let socket = mosquitto_socket(handle)
        do {
            try FileDescriptor(rawValue: socket).setNonBlocking()
            try loop.watch(socket) { [self] _ in readable() }
        } catch {
            attemptFailed("cannot watch the broker's socket: \(error)")
            mosquitto_disconnect(handle)
            attemptConnection(after: nextDelay())
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
    func readable() {
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
    func noticeClosed(_ rc: Int32) {
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
    func flush() {
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
    func collectDeferredReads() {
        guard connection.readsDeferred, case .open = connection.phase else { return }
        noticeClosed(mosquitto_loop_read(handle, 1))
    }

    /// No reading came to collect the acknowledgements: read them now, retire them from the spool (no
    /// reading's transaction will take them along), and wake for the broker again.
    func sweepAcknowledgements() {
        connection.ackSweep = nil
        guard connection.readsDeferred else { return }
        readable()
        retirePending() // what no reading's transaction will take along
    }

    /// Sleeps until the keepalive is due (no traffic either way for `keepalive` seconds), then lets
    /// libmosquitto ping or, when its ping went unanswered, end the connection. No tick while traffic flows.
    func scheduleKeepalive() {
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
}
