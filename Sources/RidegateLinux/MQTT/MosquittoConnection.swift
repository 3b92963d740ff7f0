import CMosquitto
import Glibc
import RidegateCore

/// What a `MosquittoConnection` tells the one who publishes through it, on the loop's thread.
protocol MQTTConnectionEvents: AnyObject {
    /// The broker accepted CONNECT (the retained `online` status is on its way).
    func connectionAccepted()
    /// The connection ended: lost, refused after the socket opened, or closed at the stop.
    func connectionEnded()
    /// After each read of the broker's answers: the messages it acknowledged (a PUBACK or PUBCOMP) or refused,
    /// in the order read; none when the read brought other packets only.
    func acknowledged(_ acknowledgements: [MQTTAcknowledgement])
    /// A message on a subscribed topic (Home Assistant's status, `MQTTSettings.subscriptions`).
    func received(topic: String, payload: String)
    /// An attempt to connect failed (said in the log too): why, in words.
    func attemptFailed(reason: String)
}

/// The broker's answer to one QoS 1 or 2 message: taken, or refused (`refusal`).
struct MQTTAcknowledgement {
    let messageID: Int32
    let refusal: MQTTRefusal?
}

/// How soon whoever publishes needs the broker's answer to a message.
enum AnswerNeeded {
    /// Something waits on it (a replay paced by its acknowledgements, a one-off publication awaited): the loop
    /// wakes for it.
    case soon
    /// It may wait in the socket until the next turn that publishes (see `MosquittoConnection.flush`).
    case whenConvenient
}

/// A PUBACK with a failure reason code (MQTT 5): the broker will not take that topic from this client.
struct MQTTRefusal {
    let topic: String
    let reason: String
}

/// libmosquitto driven by the gateway's event loop, and nothing else: the loop watches the connection's socket
/// and calls libmosquitto's read, write and keepalive steps (its "external loop" API), libmosquitto's callbacks
/// become `MQTTConnectionEvents`. A message is written to the socket in the turn that published it; an answer
/// no one needs soon is read in the next turn that publishes (see `flush`). No network thread of
/// libmosquitto's; the blocking connect (DNS, TCP, TLS handshake) runs on a thread of its own while the loop
/// leaves the connection alone. Backoff, failover between brokers, and the retained `online`/`offline` status
/// (the last will, and at the orderly stop) are the connection's; what is stored, sent and retired is
/// `MQTTPublisher`'s.
final class MosquittoConnection: @unchecked Sendable {
    // @unchecked: `handle` and the loop-only state are touched only on `loop`'s thread, except the blocking
    // (re)connect on its own thread, which runs only while `phase` is `.attempting` (when the loop leaves the
    // handle alone); the few facts other threads read are in `Locked` values.
    private nonisolated(unsafe) let handle: OpaquePointer
    private let settings: MQTTSettings
    private let logger: Logger
    private let loop: EventLoop
    /// Longest an answer that may wait stays in the socket when no turn comes to read it (2 s; a test makes it
    /// longer, so the sweep cannot pass for a wakeup).
    private let acknowledgementDelay: Double
    weak var events: (any MQTTConnectionEvents)?
    private let connectedFlag = Locked(false)
    private let stopping = Locked(false)
    /// libmosquitto's last error line (OpenSSL's reasons arrive only there), for the next failure report.
    private let transportError = Locked<String?>(nil)
    /// Failed attempts since the last connection: their reasons, which were said, and when.
    private let failures = Locked(RepeatedFailures(interval: 60))
    /// The broker tried or in use (of `settings.brokers`); read by the connecting thread too.
    private let currentBroker: Locked<BrokerAddress>
    var broker: BrokerAddress { currentBroker.withLock { $0 } }

    /// Where the connection is, each phase with what only it needs.
    private enum Phase {
        /// Not started, or stopped.
        case idle
        /// Waiting out the backoff; the loop's timer starts the attempt.
        case waiting(nextAttempt: DeferredWork)
        /// An attempt's thread is in mosquitto_connect, which has the handle meanwhile; who waits for it to end
        /// (a stop).
        case attempting(waiters: [CheckedContinuation<Void, Never>])
        /// The socket is watched by the loop (CONNACK may still be on its way).
        case open(Link)
    }

    /// What an open connection keeps.
    private struct Link {
        let socket: Int32
        /// Monotonic seconds of the last bytes read and written: the keepalive is due `keepalive` after the older.
        var lastRead: Double
        var lastWritten: Double
        var keepalive: Task<Void, Never>?
        /// When the broker must have answered CONNECT (`connackTimeoutSeconds` after the socket opened).
        var connackDeadline: DeferredWork?
        /// The topics of QoS 1 and 2 messages in flight, by message id: what a refusal names.
        var inFlightTopics: [Int32: String] = [:]
        /// Those of them whose answer is needed soon (`AnswerNeeded.soon`): while any is in flight, reads wait for nothing.
        var answersNeededSoon: Set<Int32> = []
        /// The loop does not wake for the broker's bytes: they are read by the next `flush`, or by `ackSweep`.
        var readsDeferred = false
        var ackSweep: DeferredWork?
        /// Something was published since the last `flush` (libmosquitto writes at once when it can).
        var published = false
        /// At the stop: the offline status's message id, and who waits for its acknowledgement.
        var offline: (message: Int32, acknowledged: CheckedContinuation<Bool, Never>)?

        init(socket: Int32, at now: Double) {
            self.socket = socket
            lastRead = now
            lastWritten = now
        }

        /// Its timers, called off as it ends.
        func cancelTimers() {
            keepalive?.cancel()
            connackDeadline?.cancel()
            ackSweep?.cancel()
        }
    }

    // On the loop's thread only:
    private var phase = Phase.idle
    private var backoff: ReconnectBackoff
    /// Every topic published retained with a payload, kept only where asked to clear them at the stop
    /// (`MQTTSettings.clearRetainedAtStop`), and those an earlier run may have left (`alsoClearAtStop`).
    private var retainedTopics: Set<String> = []
    /// Who waits for a connection; some (a one-off probe) only until the first attempt fails.
    private var connectionWaiters: [(waiter: CheckedContinuation<Void, Never>, untilFirstFailure: Bool)] = []
    /// The answers the read in progress brought, handed over together when it ends (`readAnswers`).
    private var answersRead: [MQTTAcknowledgement] = []

    /// The open connection's state, nil in any other phase.
    private var link: Link? {
        if case .open(let link) = phase { return link }
        return nil
    }

    /// Changes the open connection's state; nothing in any other phase. `change` only sets fields: what it
    /// calls must not move the phase.
    private func updateLink(_ change: (inout Link) -> Void) {
        guard case .open(var link) = phase else { return }
        // The phase lets go of its copy first, so the messages in flight are changed in place, not copied.
        phase = .idle
        change(&link)
        phase = .open(link)
    }

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    /// `maxInFlight`: libmosquitto's window for QoS 1 and 2 messages (retained state too).
    init(settings: MQTTSettings, maxInFlight: Int, loop: EventLoop, logger: Logger, acknowledgementDelay: Double = 2) throws(MQTTError) {
        _ = MosquittoConnection.libraryReady
        guard let mosq = mosquitto_new(settings.clientID, true, nil) else {
            throw MQTTError(operation: "new", code: errno, detail: "cannot create a client: \(Errno.current)")
        }
        handle = mosq
        self.settings = settings
        if settings.clearRetainedAtStop { retainedTopics = Set(settings.alsoClearAtStop) }
        self.loop = loop
        self.logger = logger
        self.acknowledgementDelay = acknowledgementDelay
        currentBroker = Locked(BrokerAddress(host: settings.host, port: settings.port))
        backoff = ReconnectBackoff(initial: Double(settings.reconnectMinSeconds), maximum: Double(settings.reconnectMaxSeconds))
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        try configure(mosq, maxInFlight: maxInFlight)
    }

    /// libmosquitto formats a line (a malloc and a vsnprintf under a mutex) for every packet while a log
    /// callback is set, and only a connection attempt's errors are wanted (OpenSSL's reasons arrive only
    /// there): it is set for attempts and cleared once connected.
    private static let logErrors: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = {
        _, context, level, text in
        guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
        Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().didLogError(String(cString: text))
    }

    private func configure(_ mosq: OpaquePointer, maxInFlight: Int) throws(MQTTError) {
        try settings.apply(to: mosq)
        let offline = Array("offline".utf8)
        if let status = settings.statusTopic { try MQTTSettings.check(mosquitto_will_set(mosq, status, Int32(offline.count), offline, 1, true), "will") }
        try MQTTSettings.check(mosquitto_max_inflight_messages_set(mosq, UInt32(max(1, maxInFlight))), "in-flight window")
        mosquitto_log_callback_set(mosq, Self.logErrors)
        mosquitto_connect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().didConnect(rc)
        }
        mosquitto_disconnect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            let systemError = errno // the failure's, before anything else changes it
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().connectionEnded(rc, errno: systemError)
        }
        mosquitto_message_callback_set(mosq) { _, context, message in
            guard let context, let message, let topic = message.pointee.topic else { return }
            let m = message.pointee
            let payload = m.payloadlen > 0 && m.payload != nil
                ? String(decoding: UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen)), as: UTF8.self) : ""
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().events?.received(topic: String(cString: topic), payload: payload)
        }
        // The v5 callback, for either protocol: with MQTT 5 a PUBACK carries a reason code (a broker's ACL
        // refusing the topic, a quota), which is not a delivery. With 3.1.1 it is always 0 (docs/mqtt.md).
        mosquitto_publish_v5_callback_set(mosq) { _, context, mid, reason, _ in
            guard let context else { return }
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().didPublish(mid, reason: reason)
        }
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
    func start() {
        let first = Double.random(in: 0..<0.5) * Double(settings.reconnectMinSeconds)
        loop.execute { [self] in attemptConnection(after: first) }
    }

    /// The next reconnect delay, jittered.
    private func nextDelay() -> Double { backoff.jittered(Double.random(in: 0..<1)) }

    /// On the loop: one attempt, `delay` seconds from now (a timer of the loop's: no thread waits it out).
    private func attemptConnection(after delay: Double) {
        guard !stopping.withLock({ $0 }) else {
            phase = .idle
            return
        }
        phase = .waiting(nextAttempt: loop.execute(after: delay) { [self] in startAttempt() })
    }

    /// On the loop: hands the handle to a thread of its own for the blocking attempt.
    private func startAttempt() {
        phase = .attempting(waiters: [])
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
    private func attemptEnded(_ failure: String?) {
        if case .attempting(let waiters) = phase {
            for waiter in waiters { waiter.resume() }
        }
        phase = .idle
        if stopping.withLock({ $0 }) {
            if failure == nil { mosquitto_disconnect(handle) }
            phase = .idle
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
        var link = Link(socket: socket, at: SystemClock.monotonicSeconds())
        link.connackDeadline = loop.execute(after: Self.connackTimeoutSeconds) { [self] in connackOverdue() }
        phase = .open(link)
        flush()
        scheduleKeepalive()
    }

    /// On the loop: hands a message to libmosquitto (written by the turn's `flush`); its message id when taken.
    /// Its acknowledgement (QoS 1 and 2) comes through `events`, as soon as `answer` asks.
    @discardableResult
    func publish(topic: String, payload: String, qos: Int, retain: Bool, answer: AnswerNeeded = .whenConvenient) -> Int32? {
        var text = payload
        if retain, settings.clearRetainedAtStop {
            if payload.isEmpty { retainedTopics.remove(topic) } else { retainedTopics.insert(topic) }
        }
        updateLink { link in
            link.lastWritten = SystemClock.monotonicSeconds()
            link.published = true
        }
        var mid: Int32 = 0
        let rc = text.withUTF8 { bytes in
            mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            if qos > 0 {
                updateLink { link in
                    link.inFlightTopics[mid] = topic // what a refusal names
                    if answer == .soon { link.answersNeededSoon.insert(mid) }
                }
            }
            return mid
        }
        if rc != MOSQ_ERR_NO_CONN.rawValue {
            // Not a lost connection (that is reported once, by `connectionEnded`): a message the broker will
            // never take, such as one larger than it allows. Stored readings stay stored.
            logger.warning("cannot publish a message", [("mqtt.topic", topic), ("mqtt.reason", Self.describe(rc))])
        }
        return nil
    }

    var isConnected: Bool { connectedFlag.withLock { $0 } }

    /// Waits until connected, or `timeout` seconds; with `untilFirstFailure` (a one-off probe such as `ridegate
    /// doctor`), no longer than the first failed attempt, whose reason is then `lastFailure`.
    func waitUntilConnected(timeout: Double, untilFirstFailure: Bool) async -> Bool {
        _ = await withDeadline(seconds: timeout, on: loop) { [self] in
            // The deadline cancels the wait; a cancel that comes before the waiter is listed finds `cancelled` set.
            let cancelled = Locked(false)
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    loop.execute { [self] in
                        if isConnected || cancelled.withLock({ $0 }) {
                            waiter.resume()
                        } else {
                            connectionWaiters.append((waiter, untilFirstFailure))
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

/// The socket on the loop: libmosquitto's read, write and keepalive steps when the loop says it is ready, and
/// when the loop need not wake for the broker's answers.
extension MosquittoConnection {
    /// The loop saw the socket readable (or writable while output waited, or hung up).
    private func readable() {
        guard case .open = phase else { return }
        readAnswers()
        flush()
    }

    /// Reads what the broker sent until the socket would block, and hands over the acknowledgements it brought
    /// in one event; a failure closes the connection (see `noticeClosed`), after them.
    private func readAnswers() {
        updateLink { link in
            link.lastRead = SystemClock.monotonicSeconds()
            link.readsDeferred = false // read now: the flush after it has nothing left to read first
        }
        let rc = mosquitto_loop_read(handle, 1)
        let systemError = errno
        let answers = answersRead
        answersRead.removeAll(keepingCapacity: true)
        events?.acknowledged(answers)
        noticeClosed(rc, errno: systemError)
    }

    /// libmosquitto closed the socket (a read, write or keepalive step failed). Usually it says so through the
    /// disconnect callback; a TLS handshake it gives up on (bookworm's 2.0.11, a refused certificate) calls
    /// none, so the socket itself is the witness: without this the client would wait on a closed socket forever.
    private func noticeClosed(_ rc: Int32, errno systemError: Int32 = Glibc.errno) {
        // `systemError`: the failed step's errno, read before anything else changes it.
        guard case .open = phase, mosquitto_socket(handle) < 0 else { return }
        connectionEnded(rc == MOSQ_ERR_SUCCESS.rawValue ? MOSQ_ERR_CONN_LOST.rawValue : rc, errno: systemError)
    }

    /// The end of a turn that published: reads the answers that waited in the socket, then writes what
    /// libmosquitto has queued; what the socket cannot take yet waits for EPOLLOUT.
    ///
    /// A turn that wrote only messages whose answers may wait (`AnswerNeeded.whenConvenient`) does not ask to be
    /// woken for them: the broker's acknowledgements (a PUBACK a few hundred microseconds later) wait in the
    /// socket until the next turn's flush reads them, so a 10 Hz GPS costs one wakeup per fix, not two. When no
    /// such turn comes, `ackSweep` reads them `acknowledgementDelay` later. A hang-up still wakes the loop at once;
    /// so does an answer needed soon, and anything while stopping.
    func flush() {
        if link?.readsDeferred == true { readAnswers() }
        // The read may have ended the connection.
        guard let link else { return }
        let wrote = link.published || mosquitto_want_write(handle)
        updateLink { $0.published = false }
        if mosquitto_want_write(handle) {
            updateLink { $0.lastWritten = SystemClock.monotonicSeconds() }
            noticeClosed(mosquitto_loop_write(handle, 1))
        }
        // The write may have failed and ended the connection.
        guard case .open(let open) = phase else { return }
        let deferReads = wrote && open.answersNeededSoon.isEmpty && open.offline == nil && !stopping.withLock({ $0 })
        open.ackSweep?.cancel()
        let sweep = deferReads ? loop.execute(after: acknowledgementDelay) { [self] in sweepAcknowledgements() } : nil
        updateLink { link in
            link.readsDeferred = deferReads
            link.ackSweep = sweep
        }
        loop.setInterest(open.socket, EventLoop.Interest(readable: !deferReads, writable: mosquitto_want_write(handle)))
    }


    /// No turn came to read the answers: read them now, and wake for the broker again.
    private func sweepAcknowledgements() {
        updateLink { $0.ackSweep = nil }
        guard link?.readsDeferred == true else { return }
        readable()
    }

    /// Sleeps until the keepalive is due (no traffic either way for `keepalive` seconds), then lets
    /// libmosquitto ping or, when its ping went unanswered, end the connection. No tick while traffic flows.
    private func scheduleKeepalive() {
        link?.keepalive?.cancel()
        let interval = Double(settings.keepaliveSeconds)
        guard interval > 0 else { return }
        let keepalive = Task(executorPreference: loop) { [weak self] in
            while let self, let link = self.link {
                let now = SystemClock.monotonicSeconds()
                var due = min(link.lastRead, link.lastWritten) + interval
                // A ping is out and unanswered: libmosquitto gives up on it `keepalive` after sending it.
                if due <= now { due = link.lastWritten + interval }
                await self.loop.sleep(seconds: max(1, due - now))
                guard !Task.isCancelled, self.link != nil else { return }
                self.noticeClosed(mosquitto_loop_misc(self.handle))
                // misc pinged (the keepalive was due) or found the broker silent too long and closed.
                self.updateLink { $0.lastWritten = SystemClock.monotonicSeconds() }
                self.flush()
            }
        }
        updateLink { $0.keepalive = keepalive }
    }
}

/// libmosquitto's callbacks and what they mean to the connection: on the loop's thread, inside
/// mosquitto_loop_read/write/misc (`configure` sets them).
extension MosquittoConnection {
    /// The socket opened but CONNECT went unanswered: something listens there that is not an MQTT broker (or one
    /// that expects TLS first). Said as such, then closed and tried again with backoff.
    private func connackOverdue() {
        updateLink { $0.connackDeadline = nil }
        guard case .open = phase, !isConnected else { return }
        attemptFailed("the broker at \(broker.host):\(broker.port) took the connection but did not answer MQTT's CONNECT within "
                      + "\(Int(Self.connackTimeoutSeconds)) s: is an MQTT broker listening on mqtt.port, or does it expect TLS (mqtt.ca_file)?")
        // Ended as a refusal, which `connectionEnded` does not report again; then the socket goes.
        connectionEnded(MOSQ_ERR_CONN_REFUSED.rawValue, errno: 0)
        mosquitto_disconnect(handle)
        _ = mosquitto_loop_write(handle, 1)
    }

    private func didConnect(_ rc: Int32) {
        link?.connackDeadline?.cancel()
        updateLink { $0.connackDeadline = nil }
        guard rc == 0 else {
            let reason = String(cString: mosquitto_connack_string(rc))
            attemptFailed(rc == 4 || rc == 5 ? "the broker refused the credentials (\(reason)): check mqtt.username and mqtt.password_file" : "the broker refused the connection: \(reason)")
            return
        }
        connectedFlag.withLock { $0 = true }
        mosquitto_log_callback_set(handle, nil)
        failures.withLock { $0.succeeded() }
        transportError.withLock { $0 = nil }
        backoff.reset()
        if let status = settings.statusTopic { publish(topic: status, payload: "online", qos: 1, retain: true) }
        if let ha = settings.homeAssistantStatusTopic { mosquitto_subscribe(handle, nil, ha, 1) }
        for filter in settings.subscriptions { mosquitto_subscribe(handle, nil, filter, 0) }
        events?.connectionAccepted()
        resumeConnectionWaiters()
    }

    private func resumeConnectionWaiters() {
        for entry in connectionWaiters { entry.waiter.resume() }
        connectionWaiters.removeAll()
    }

    /// An attempt failed: said (`reportFailure`), and the end of the wait for those who wait only that long.
    private func attemptFailed(_ reason: String) {
        reportFailure(reason)
        events?.attemptFailed(reason: reason)
        moveToNextBroker()
        for entry in connectionWaiters where entry.untilFirstFailure { entry.waiter.resume() }
        connectionWaiters.removeAll { $0.untilFirstFailure }
    }

    /// The connection closed (libmosquitto closed the socket already): unwatch it and try again later.
    /// `systemError`: the errno of the step that failed (unwatching the closed socket below sets EBADF).
    private func connectionEnded(_ rc: Int32, errno systemError: Int32) {
        guard let link else { return }
        loop.unwatch(link.socket)
        link.cancelTimers()
        let wasConnected = connectedFlag.withLock { was in
            defer { was = false }
            return was
        }
        events?.connectionEnded()
        link.offline?.acknowledged.resume(returning: false)
        phase = .idle
        if stopping.withLock({ $0 }) { return }
        if wasConnected {
            logger.warning("lost the broker; storing readings and reconnecting with backoff", [("mqtt.reason", failureReason(rc, errno: systemError))])
        } else if rc != MOSQ_ERR_CONN_REFUSED.rawValue {
            // A connection that never came up (a TLS handshake refused after the TCP connect): an attempt
            // failed. (A refused CONNACK was reported by `didConnect`.)
            attemptFailed(failureReason(rc, errno: systemError))
        }
        attemptConnection(after: nextDelay())
    }

    /// A PUBACK (or PUBCOMP), kept for the read's event (`readAnswers`): `reason` 0x80 and up is the broker's
    /// refusal, never a delivery. libmosquitto calls this for a QoS 0 message too, once written: no answer.
    private func didPublish(_ mid: Int32, reason: Int32) {
        if link?.offline?.message == mid {
            resumeOffline(reason < 0x80)
            return
        }
        var topic: String?
        updateLink { link in
            topic = link.inFlightTopics.removeValue(forKey: mid)
            link.answersNeededSoon.remove(mid)
        }
        guard let topic else { return }
        var refusal: MQTTRefusal?
        if reason >= 0x80 {
            let words = mosquitto_reason_string(reason).map { String(cString: $0) } ?? "reason code \(reason)"
            refusal = MQTTRefusal(topic: topic, reason: words)
        }
        answersRead.append(MQTTAcknowledgement(messageID: mid, refusal: refusal))
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
    var lastFailure: String? { failures.withLock { $0.lastReason } }

    /// After a failed attempt, the next of a cluster's brokers (`mqtt.hosts`) is tried; a connection that
    /// works stays where it is (one that is lost tries its broker again first).
    private func moveToNextBroker() {
        let brokers = settings.brokers
        guard brokers.count > 1 else { return }
        currentBroker.withLock { current in
            let index = brokers.firstIndex(of: current) ?? 0
            current = brokers[(index + 1) % brokers.count]
        }
    }
}

/// Why a connection attempt failed, in words a person can act on (a refused certificate names the CA file and
/// the host name to check), said once per reason and then once a minute with the count (`RepeatedFailures`).
extension MosquittoConnection {
    /// Says why attempts fail: at once for a reason not said before, then once a minute with the count, so a
    /// broker that stays away does not fill the journal.
    private func reportFailure(_ reason: String) {
        let now = SystemClock.monotonicSeconds()
        let (say, attempts) = failures.withLock { f in (f.failed(reason, at: now), f.attempts) }
        guard say else { return }
        logger.warning("cannot connect to the broker; retrying with backoff", [
            ("mqtt.broker", "\(broker.host):\(broker.port)"), ("mqtt.reason", reason), ("mqtt.attempts", String(attempts)),
        ])
    }

    /// The result code in words, with what OpenSSL said when TLS failed. `systemError` is the errno of the
    /// failed call, read right after it: anything in between (closing or unwatching the socket) changes errno.
    private func failureReason(_ rc: Int32, errno systemError: Int32 = Glibc.errno) -> String {
        // The last error line stays until a connection succeeds: libmosquitto may report the failed result
        // before or after the line that explains it, and both must give the same reason.
        let detail = transportError.withLock { $0 }
        // bookworm's libmosquitto ends a refused handshake with MOSQ_ERR_TLS; trixie's (2.0.21) with an errno of
        // EPROTO ("Protocol error") and no log line.
        let tlsFailure = settings.tls != nil
            && ([MOSQ_ERR_TLS.rawValue, MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_PROTOCOL.rawValue].contains(rc)
                || (rc == MOSQ_ERR_ERRNO.rawValue && systemError == EPROTO))
        if let detail, tlsFailure, detail.contains("certificate verify failed") {
            return "TLS: the broker's certificate was not accepted: not signed by mqtt.ca_file (\(settings.tls?.caFile ?? "?")), expired, "
                + "or not issued for the name \(broker.host) (mqtt.host must be a name or address the certificate lists)"
        }
        if let detail, tlsFailure, detail.contains("SSL") || detail.contains("TLS") {
            return "TLS: \(detail)"
        }
        if tlsFailure {
            // Some libmosquitto versions say only "Protocol error" for a refused handshake, and log nothing.
            return "TLS: the connection failed during the handshake (\(Self.describe(rc, errno: systemError))): check that mqtt.ca_file "
                + "(\(settings.tls?.caFile ?? "?")) signed the broker's certificate and that it lists \(broker.host)"
        }
        if rc == MOSQ_ERR_ERRNO.rawValue, systemError == ECONNREFUSED {
            return "connection refused: nothing listens on \(broker.host):\(broker.port) (is mosquitto running? mqtt.port?)"
        }
        return Self.describe(rc, errno: systemError)
    }

    static func describe(_ rc: Int32, errno systemError: Int32 = Glibc.errno) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(systemError)) }
        // libmosquitto's own text is "Lookup error."; say what failed and where to look.
        if rc == MOSQ_ERR_EAI.rawValue { return "cannot resolve the broker's host name (check mqtt.host, /etc/hosts and DNS)" }
        return String(cString: mosquitto_strerror(rc))
    }
}

/// The orderly stop: the retained `offline` status acknowledged (or every retained topic cleared, where asked),
/// an attempt in progress called off, then the connection closed.
extension MosquittoConnection {
    /// How long a stop waits for a connection attempt in progress: its blocking steps (DNS, the TCP connect, the
    /// TLS handshake) can take minutes against a broker whose packets vanish, far past systemd's stop timeout.
    private static let attemptGraceSeconds = 2.0
    /// How long a broker has to answer CONNECT once the socket is open (mosquitto answers in milliseconds).
    private static let connackTimeoutSeconds = 10.0

    /// Publishes the retained `offline` status and waits (up to `offlineTimeout` seconds) for the broker's
    /// PUBACK, then disconnects and tries no more. What the broker sent meanwhile is read first, so its last
    /// acknowledgements reach `events` before `connectionEnded`.
    func close(offlineTimeout: Double) async {
        if settings.statusTopic != nil {
            let acknowledged = await withDeadline(seconds: offlineTimeout, on: loop) { [self] in
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
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute { [self] in
                if link?.readsDeferred == true { readAnswers() }
                if let link {
                    link.cancelTimers()
                    mosquitto_disconnect(handle)
                    _ = mosquitto_loop_write(handle, 1)
                    loop.unwatch(link.socket)
                }
                connectedFlag.withLock { $0 = false }
                events?.connectionEnded()
                resumeOffline(false)
                phase = .idle
                done.resume()
            }
        }
    }

    /// On the loop: sends `offline` (retained, QoS 1), or clears every retained topic and the status where
    /// asked, and resumes `acknowledged` on the status's PUBACK, or at once with false when not connected.
    private func publishOffline(_ acknowledged: CheckedContinuation<Bool, Never>) {
        guard isConnected, let status = settings.statusTopic else {
            acknowledged.resume(returning: false)
            return
        }
        // Where asked (the demo), nothing is left behind: every retained topic is cleared, the status last.
        for topic in retainedTopics.sorted() where topic != status {
            mosquitto_publish(handle, nil, topic, 0, nil, 1, true)
        }
        var mid: Int32 = 0
        let offline = settings.clearRetainedAtStop ? [] : Array("offline".utf8)
        guard mosquitto_publish(handle, &mid, status, Int32(offline.count), offline, 1, true) == MOSQ_ERR_SUCCESS.rawValue else {
            acknowledged.resume(returning: false)
            return
        }
        updateLink { $0.offline = (mid, acknowledged) }
        flush()
    }

    private func resumeOffline(_ value: Bool) {
        link?.offline?.acknowledged.resume(returning: value)
        updateLink { $0.offline = nil }
    }

    /// At a stop: calls off the next attempt, and waits for one in progress at most `attemptGraceSeconds`. An
    /// attempt still running after that is left to end on its own thread (it holds the connection until then,
    /// and touches nothing once it sees the stop).
    private func callOffAttempts() async {
        let ended = await withDeadline(seconds: Self.attemptGraceSeconds, on: loop) { [self] in
            let cancelled = Locked(false)
            await withTaskCancellationHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    loop.execute { [self] in
                        switch phase {
                        case .waiting(let next):
                            next.cancel()
                            phase = .idle
                            done.resume()
                        case .attempting(let waiters) where !cancelled.withLock({ $0 }):
                            phase = .attempting(waiters: waiters + [done])
                        default:
                            done.resume()
                        }
                    }
                }
            } onCancel: {
                cancelled.withLock { $0 = true }
                loop.execute { [self] in
                    guard case .attempting(let waiters) = phase else { return }
                    for waiter in waiters { waiter.resume() }
                    phase = .attempting(waiters: [])
                }
            }
        }
        if case .deadline = ended {
            logger.warning("a connection attempt to the broker has not ended (no answer); stopping without waiting for it",
                           [("mqtt.broker", "\(broker.host):\(broker.port)")])
        }
    }
}
