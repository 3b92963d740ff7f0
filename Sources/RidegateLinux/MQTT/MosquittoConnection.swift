import CMosquitto
import Glibc
import RidegateCore

/// What a `MosquittoConnection` tells the one who publishes through it, on the loop's thread.
protocol MQTTConnectionEvents: AnyObject {
    /// The broker accepted CONNECT (the retained `online` status is on its way).
    func connectionAccepted()
    /// The connection ended: lost, refused after the socket opened, or closed at the stop.
    func connectionEnded()
    /// The broker acknowledged message `messageID` (a PUBACK or PUBCOMP), or refused it (`refusal`).
    func acknowledged(messageID: Int32, refusal: MQTTRefusal?)
    /// The broker's acknowledgements were read while readings may still flow.
    func acknowledgementsRead()
    /// No publishing turn is near (the acknowledgement sweep, the keepalive): nothing should wait for one.
    func connectionIdle()
    /// A message on the subscribed topic (Home Assistant's status).
    func received(payload: String)
    /// Whether the broker's answers may wait in the socket until the next turn that publishes (see `flush`).
    var acknowledgementsMayWait: Bool { get }
}

/// A PUBACK with a failure reason code (MQTT 5): the broker will not take that topic from this client.
struct MQTTRefusal {
    let topic: String
    let reason: String
}

/// libmosquitto driven by the gateway's event loop, and nothing else: the loop watches the connection's socket
/// and calls libmosquitto's read, write and keepalive steps (its "external loop" API), libmosquitto's callbacks
/// become `MQTTConnectionEvents`. A message is written to the socket in the turn that published it; while
/// readings flow, its PUBACK is read in the turn of the next one (see `flush`). No network thread of
/// libmosquitto's; the blocking connect (DNS, TCP, TLS handshake) runs on a thread of its own while the loop
/// leaves the connection alone. Backoff, failover between brokers, and the retained `online`/`offline` status
/// (the last will, and at the orderly stop) are the connection's; what is stored, sent and retired is
/// `MQTTPublisher`'s.
final class MosquittoConnection: @unchecked Sendable {
    // @unchecked: `handle` and the loop-only state are touched only on `loop`'s thread, except the blocking
    // (re)connect on its own thread, which runs only while `phase` is `.connecting` (when the loop leaves the
    // handle alone); the few facts other threads read are in `Locked` values.
    nonisolated(unsafe) let handle: OpaquePointer
    let settings: MQTTSettings
    let logger: Logger
    let loop: EventLoop
    weak var events: (any MQTTConnectionEvents)?
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

    // On the loop's thread only:
    var phase = Phase.idle
    var backoff: ReconnectBackoff
    /// Monotonic seconds of the last bytes read and written: the keepalive is due `keepalive` after the older.
    var lastRead = 0.0
    var lastWritten = 0.0
    var keepalive: Task<Void, Never>?
    /// The next attempt, waiting out its backoff.
    var nextAttempt: DeferredWork?
    /// When the broker must have answered CONNECT (`connackTimeoutSeconds` after the socket opened).
    var connackDeadline: DeferredWork?
    /// An attempt's thread is in mosquitto_connect; who waits for it to end (the stop).
    var attemptRunning = false
    var attemptWaiters: [CheckedContinuation<Void, Never>] = []
    /// The offline status's message id at the stop, and who waits for its acknowledgement.
    var offlineMessage: Int32?
    var offlineAcknowledged: CheckedContinuation<Bool, Never>?
    /// Every topic published retained with a payload, kept only where asked to clear them at the stop
    /// (`MQTTSettings.clearRetainedAtStop`).
    var retainedTopics: Set<String> = []
    /// Who waits for a connection; some (a one-off probe) only until the first attempt fails.
    var connectionWaiters: [(waiter: CheckedContinuation<Void, Never>, untilFirstFailure: Bool)] = []
    /// The topics of QoS 1 and 2 messages in flight, by message id: what a refusal names.
    var inFlightTopics: [Int32: String] = [:]
    /// The loop does not wake for the broker's bytes: they are read at the start of the next turn that
    /// publishes (`readWaiting`), or by `ackSweep` (see `flush`).
    var readsDeferred = false
    var ackSweep: DeferredWork?
    /// Something was published since the last `flush` (libmosquitto writes at once when it can).
    var published = false

    static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    /// `maxInFlight`: libmosquitto's window for QoS 1 and 2 messages (retained state too).
    init(settings: MQTTSettings, maxInFlight: Int, loop: EventLoop, logger: Logger) throws(MQTTError) {
        _ = MosquittoConnection.libraryReady
        guard let mosq = mosquitto_new(settings.clientID, true, nil) else {
            throw MQTTError(operation: "new", code: errno, detail: "cannot create a client: \(Errno.current)")
        }
        handle = mosq
        self.settings = settings
        self.loop = loop
        self.logger = logger
        currentBroker = Locked(BrokerAddress(host: settings.host, port: settings.port))
        backoff = ReconnectBackoff(initial: Double(settings.reconnectMinSeconds), maximum: Double(settings.reconnectMaxSeconds))
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        try configure(mosq, maxInFlight: maxInFlight)
    }

    /// libmosquitto formats a line (a malloc and a vsnprintf under a mutex) for every packet while a log
    /// callback is set, and only a connection attempt's errors are wanted (OpenSSL's reasons arrive only
    /// there): it is set for attempts and cleared once connected.
    static let logErrors: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = { _, context, level, text in
        guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
        Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().didLogError(String(cString: text))
    }

    func configure(_ mosq: OpaquePointer, maxInFlight: Int) throws(MQTTError) {
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
            guard let context, let message else { return }
            let m = message.pointee
            let payload = m.payloadlen > 0 && m.payload != nil
                ? String(decoding: UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen)), as: UTF8.self) : ""
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().events?.received(payload: payload)
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
    func nextDelay() -> Double { backoff.jittered(Double.random(in: 0..<1)) }

    /// On the loop: one attempt, `delay` seconds from now (a timer of the loop's: no thread waits it out).
    func attemptConnection(after delay: Double) {
        guard !stopping.withLock({ $0 }) else { return }
        phase = .connecting
        nextAttempt = loop.execute(after: delay) { [self] in startAttempt() }
    }

    /// On the loop: hands the handle to a thread of its own for the blocking attempt.
    func startAttempt() {
        nextAttempt = nil
        attemptRunning = true
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
        attemptRunning = false
        for waiter in attemptWaiters { waiter.resume() }
        attemptWaiters.removeAll()
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
        phase = .open(socket: socket)
        connackDeadline = loop.execute(after: Self.connackTimeoutSeconds) { [self] in connackOverdue() }
        let now = SystemClock.monotonicSeconds()
        lastRead = now
        lastWritten = now
        flush()
        scheduleKeepalive()
    }

    /// On the loop: hands a message to libmosquitto (written by the turn's `flush`); its message id when taken.
    @discardableResult
    func publish(topic: String, payload: String, qos: Int, retain: Bool) -> Int32? {
        var text = payload
        if retain, settings.clearRetainedAtStop {
            if payload.isEmpty { retainedTopics.remove(topic) } else { retainedTopics.insert(topic) }
        }
        lastWritten = SystemClock.monotonicSeconds()
        published = true
        var mid: Int32 = 0
        let rc = text.withUTF8 { bytes in
            mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            if qos > 0 { inFlightTopics[mid] = topic } // what a refusal names
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
        _ = await withDeadline(seconds: timeout) { [self] in
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
