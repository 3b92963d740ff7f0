import CMosquitto
import Dispatch
import Glibc
import RidegateCore

/// An MQTT connection through libmosquitto, whose network loop runs in its own thread
/// (mosquitto_loop_start): publishing never blocks the pipeline on the network.
///
/// Readings are stored before they are sent and forgotten only on the broker's PUBACK (store-and-forward,
/// at least once). After every (re)connect the stored backlog is replayed oldest first, marked
/// `"replayed":true`, with a bounded number in flight; readings arriving meanwhile are stored behind it
/// and go out in turn, so every topic stays in order.
/// Retained state (status, device states, sun) is last-value-wins: only the newest per topic is kept and
/// re-sent on reconnect. The status topic carries a retained `online` on connect and a retained
/// `offline` as the last will and on orderly shutdown.
public final class MosquittoClient: @unchecked Sendable {
    // @unchecked: `handle` is libmosquitto's (thread-safe for publish with loop_start); everything else
    // mutable lives in `book`, touched only where `confined` runs it (the event loop or `queue`), or in the Locked connection flag.
    private nonisolated(unsafe) let handle: OpaquePointer
    private let settings: MQTTSettings
    private let topicPrefix: String
    private let logger: Logger
    private let queue: DispatchQueue
    private let connected = Locked(false)
    private let book: Bookkeeping
    private let shutdownAcknowledged = Locked<Int32?>(nil)
    private let stopping = Locked(false)
    private let loopStarted = Locked(false)
    /// Where the first, blocking connection attempts run, off every other thread.
    private let connecting = DispatchQueue(label: "ridegate.mqtt.connect")
    private let offlineAcknowledgement = Locked<CheckedContinuation<Bool, Never>?>(nil)
    /// libmosquitto's last error line (OpenSSL's reasons arrive only there), for the next failure report.
    private let transportError = Locked<String?>(nil)
    /// The last failure said, how many attempts failed since, and when it was last logged.
    private let failures = Locked<(reason: String?, attempts: Int, loggedAt: Double)>((nil, 0, 0))

    /// Spool bookkeeping, confined to `queue`.
    private final class Bookkeeping: @unchecked Sendable {
        let store: any ReadingStore
        var inFlight: [Int32: Int64] = [:]
        var inFlightIDs: Set<Int64> = []
        var replayCursor: Int64 = 0
        /// Readings stored before this connection began are marked replayed; later ones are live.
        var backlogEnd: Int64 = 0
        var replaying = false
        /// Connected, as seen from the queue: set in the same step that starts the replay, so no live
        /// reading can slip out ahead of the backlog between the two.
        var online = false
        var retained: [String: Publication] = [:]
        var connects = 0
        var replayedCount = 0
        init(store: any ReadingStore) { self.store = store }
    }

    /// Most readings in flight at once while replaying (libmosquitto's own window is raised to match).
    public let replayWindow: Int

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    public init(settings: MQTTSettings, topicPrefix: String, store: any ReadingStore = MemoryReadingStore(),
                replayWindow: Int = 100, healthFields: HealthFields = HealthFields(), loop: EventLoop? = nil, logger: Logger) throws(MQTTError) {
        self.healthFields = healthFields
        self.loop = loop
        queue = DispatchQueue(label: "ridegate.mqtt.spool")
        _ = MosquittoClient.libraryReady
        guard let mosq = mosquitto_new(settings.clientID, true, nil) else {
            throw MQTTError(operation: "new", code: errno, detail: "cannot create a client: \(Errno.current)")
        }
        handle = mosq
        self.settings = settings
        self.topicPrefix = topicPrefix
        self.logger = logger
        self.replayWindow = replayWindow
        book = Bookkeeping(store: store)
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        try configure(mosq)
    }

    private func configure(_ mosq: OpaquePointer) throws(MQTTError) {
        if settings.protocolVersion == 5 {
            mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V5))
        }
        let offline = Array("offline".utf8)
        if let status = settings.statusTopic { mosquitto_will_set(mosq, status, Int32(offline.count), offline, 1, true) }
        if let user = settings.username {
            mosquitto_username_pw_set(mosq, user, settings.password)
        }
        if let tls = settings.tls {
            let rc = mosquitto_tls_set(mosq, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTError(operation: "tls", code: rc, detail: "cannot use the TLS files (ca \(tls.caFile)): \(Self.describe(rc))")
            }
            // Verify the broker (SSL_VERIFY_PEER); no version pinned: libmosquitto 2.x and OpenSSL 3 allow only
            // TLS 1.2 and 1.3 by default, and pinning "tlsv1.2" fails on trixie's libmosquitto 2.0.21.
            mosquitto_tls_opts_set(mosq, 1, nil, nil)
        }
        mosquitto_max_inflight_messages_set(mosq, UInt32(replayWindow + 20))
        mosquitto_reconnect_delay_set(mosq, UInt32(settings.reconnectMinSeconds), UInt32(settings.reconnectMaxSeconds), true)
        mosquitto_log_callback_set(mosq) { _, context, level, text in
            guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didLogError(String(cString: text))
        }
        mosquitto_connect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didConnect(rc)
        }
        mosquitto_disconnect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didDisconnect(rc)
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

    deinit {
        mosquitto_destroy(handle)
    }

    /// Starts connecting in the background and returns at once.
    ///
    /// The first connection is made with the blocking mosquitto_connect on a queue of its own, retried with
    /// backoff until the broker answers; only then does libmosquitto's network thread start, and it handles
    /// every reconnection after that. Not mosquitto_connect_async: with TLS, libmosquitto 2.0.21 (Debian
    /// trixie, the Pi's) fails it at once with MOSQ_ERR_TLS where the blocking call succeeds (reproduced
    /// with a ten-line C client), and its loop does not retry a first attempt that failed at once.
    public func start() throws(MQTTError) {
        firstConnection(backoff: ReconnectBackoff(initial: Double(settings.reconnectMinSeconds),
                                                  maximum: Double(settings.reconnectMaxSeconds)), attempt: 0)
    }

    private func firstConnection(backoff: ReconnectBackoff, attempt: Int) {
        connecting.async { [weak self] in
            guard let self, !self.stopping.withLock({ $0 }) else { return }
            let rc = mosquitto_connect(self.handle, self.settings.host, Int32(self.settings.port), Int32(self.settings.keepaliveSeconds))
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                let loop = mosquitto_loop_start(self.handle)
                if loop != MOSQ_ERR_SUCCESS.rawValue {
                    self.logger.critical("cannot start the MQTT network thread", [("mqtt.reason", Self.describe(loop))])
                }
                self.loopStarted.withLock { $0 = loop == MOSQ_ERR_SUCCESS.rawValue }
                return
            }
            self.reportFailure(self.failureReason(rc))
            var later = backoff
            let delay = later.delay()
            let next = later
            self.connecting.asyncAfter(deadline: .now() + delay) { self.firstConnection(backoff: next, attempt: attempt + 1) }
        }
    }

    /// The gateway's event loop, when given: the bookkeeping runs there instead of on `queue`, so a publish
    /// from the pipeline wakes no other thread.
    private let loop: EventLoop?

    /// Runs `body` where the bookkeeping lives (the loop, else `queue`), one at a time, in order.
    private func confined(_ body: @escaping @Sendable () -> Void) {
        if let loop { loop.execute(body) } else { queue.async(execute: body) }
    }

    /// What other adapters add to `health`.
    private let healthFields: HealthFields

    public var isConnected: Bool { connected.withLock { $0 } }

    /// Waits (checking every 50 ms, for a one-off probe such as `ridegate doctor`) until connected.
    public func waitUntilConnected(timeout: Double) async -> Bool {
        let deadline = SystemClock.monotonicSeconds() + timeout
        while !isConnected, SystemClock.monotonicSeconds() < deadline {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return isConnected
    }

    /// Stores and sends a reading, or keeps the newest retained state; never blocks the caller.
    public func publish(_ publication: Publication) {
        confined { [self] in
            if publication.topic == "health" {
                // The gateway's health, completed with what only the connection knows.
                var p = publication
                if p.payload.hasSuffix("}") {
                    p.payload = String(p.payload.dropLast()) + ",\"spool_depth\":\(book.store.depth()),\"spool_dropped\":\(book.store.dropped)"
                        + ",\"spool_mode\":\"\(book.store.mode)\",\"spool_recoveries\":\(book.store.recoveries)"
                        + ",\"mqtt_connects\":\(book.connects),\"replayed\":\(book.replayedCount)" + healthFields.jsonMembers + "}"
                }
                book.retained[p.topic] = p
                if isConnected { send(p) }
                return
            }
            if publication.retain || publication.qos == 0 {
                // Not spooled (latest-value state such as `sun`): its seq is kept on its own.
                if let seq = publication.sequence { try? book.store.save(sequence: seq, for: publication.topic) }
                if publication.retain { book.retained[publication.topic] = publication }
                if isConnected { send(publication) }
                return
            }
            let id: Int64
            do {
                id = try book.store.append(topic: publication.topic, payload: publication.payload, qos: publication.qos,
                                           sequence: publication.sequence)
            } catch {
                logger.error("cannot store a reading; sending it without a safety net", [("error", "\(error)")])
                if isConnected { send(topic: topicPrefix + "/" + publication.topic, payload: publication.payload, qos: publication.qos, retain: false) }
                return
            }
            // While a backlog replays, new readings join the end of it, so each topic stays in order; the
            // replay reaches them moments later (it is paced by acknowledgements, not a timer).
            guard book.online, !book.replaying else { return }
            sendStored(id: id, topic: publication.topic, payload: publication.payload, qos: publication.qos)
        }
    }

    /// Readings waiting for the broker, and readings dropped because the store was full.
    public func backlog() async -> (depth: Int64, dropped: Int64, connects: Int, replayed: Int) {
        await withCheckedContinuation { continuation in
            confined { [self] in
                continuation.resume(returning: (book.store.depth(), book.store.dropped, book.connects, book.replayedCount))
            }
        }
    }

    private func send(_ p: Publication) {
        send(topic: p.absolute ? p.topic : topicPrefix + "/" + p.topic, payload: p.payload, qos: p.qos, retain: p.retain)
    }

    @discardableResult
    private func send(topic full: String, payload: String, qos: Int, retain: Bool, mid: UnsafeMutablePointer<Int32>? = nil) -> Int32 {
        var text = payload
        return text.withUTF8 { bytes in
            mosquitto_publish(handle, mid, full, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
        }
    }

    private func sendStored(id: Int64, topic: String, payload: String, qos: Int) {
        var mid: Int32 = 0
        if send(topic: topicPrefix + "/" + topic, payload: payload, qos: qos, retain: false, mid: &mid) == MOSQ_ERR_SUCCESS.rawValue {
            book.inFlight[mid] = id
            book.inFlightIDs.insert(id)
        }
    }

    /// Sends the next part of the backlog, keeping at most `replayWindow` in flight; called again as
    /// acknowledgements arrive, so replay is paced by the broker, not by a timer.
    private func continueReplay() {
        guard book.replaying, book.online else { return }
        let room = replayWindow - book.inFlight.count
        guard room > 0 else { return }
        let batch: [SQLiteSpool.Entry]
        do {
            batch = try book.store.pending(after: book.replayCursor, limit: room)
        } catch {
            // Not "nothing pending": the backlog stays, and the next acknowledgement or connection tries again.
            logger.error("cannot read the spool's backlog", [("error", error.description)])
            return
        }
        if batch.isEmpty {
            book.replaying = false
            if book.replayedCount > 0 {
                logger.info("backlog delivered", [("mqtt.replayed", String(book.replayedCount))])
            }
            return
        }
        for entry in batch {
            book.replayCursor = entry.id
            guard !book.inFlightIDs.contains(entry.id) else { continue }
            let replayed = entry.id <= book.backlogEnd
            if replayed { book.replayedCount += 1 }
            sendStored(id: entry.id, topic: entry.topic, payload: replayed ? Self.markReplayed(entry.payload) : entry.payload, qos: entry.qos)
        }
    }

    static func markReplayed(_ payload: String) -> String {
        guard payload.hasSuffix("}"), payload.count > 2 else { return payload }
        return String(payload.dropLast()) + ",\"replayed\":true}"
    }

    /// Publishes the retained `offline` status and waits (up to `timeout` seconds) for the broker's PUBACK,
    /// then disconnects and stops the network thread. Part of the orderly shutdown.
    public func shutdown(timeout: Double = 1.5) async {
        // Let queued work reach libmosquitto first.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in confined { done.resume() } }
        if isConnected, let status = settings.statusTopic {
            let acknowledged = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                offlineAcknowledgement.withLock { $0 = continuation }
                var mid: Int32 = 0
                let offline = Array("offline".utf8)
                let rc = mosquitto_publish(handle, &mid, status, Int32(offline.count), offline, 1, true)
                guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                    resumeOffline(false)
                    return
                }
                shutdownAcknowledged.withLock { $0 = mid }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in resumeOffline(false) }
            }
            if !acknowledged { logger.warning("broker did not acknowledge the offline status in time") }
        }
        stopping.withLock { $0 = true }
        let depth = await backlog().depth
        if depth > 0 {
            logger.notice("readings kept for the next connection", [("mqtt.spool_depth", String(depth))])
        }
        mosquitto_disconnect(handle)
        // Forced: the network thread may be sleeping out a reconnect delay.
        if loopStarted.withLock({ $0 }) { mosquitto_loop_stop(handle, true) }
    }

    private func resumeOffline(_ value: Bool) {
        offlineAcknowledgement.withLock { c in
            c?.resume(returning: value)
            c = nil
        }
    }

    // MARK: callbacks, on libmosquitto's thread

    private func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            let reason = String(cString: mosquitto_connack_string(rc))
            reportFailure(rc == 4 || rc == 5 ? "the broker refused the credentials (\(reason)): check mqtt.username and mqtt.password_file" : "the broker refused the connection: \(reason)")
            return
        }
        connected.withLock { $0 = true }
        failures.withLock { $0 = (nil, 0, 0) }
        transportError.withLock { $0 = nil }
        let online = Array("online".utf8)
        if let status = settings.statusTopic { mosquitto_publish(handle, nil, status, Int32(online.count), online, 1, true) }
        if let ha = settings.homeAssistantStatusTopic { mosquitto_subscribe(handle, nil, ha, 1) }
        confined { [self] in
            book.connects += 1
            logger.info(book.connects == 1 ? "connected to broker" : "reconnected to broker",
                        [("mqtt.broker", "\(settings.host):\(settings.port)"), ("mqtt.spool_depth", String(book.store.depth()))])
            for p in book.retained.values { send(p) }
            // Everything still stored is unacknowledged: replay it from the start.
            book.inFlight.removeAll()
            book.inFlightIDs.removeAll()
            book.replayCursor = 0
            book.backlogEnd = book.store.lastID()
            book.replaying = true
            book.online = true
            continueReplay()
        }
    }

    /// Home Assistant restarted (its birth message): announce the discovery configs again.
    private func didReceive(payload: String) {
        guard payload == "online" else { return }
        confined { [self] in
            let announcements = book.retained.values.filter(\.absolute)
            logger.info("Home Assistant is online; announcing discovery again", [("mqtt.configs", String(announcements.count))])
            for p in announcements { send(p) }
        }
    }

    private func didDisconnect(_ rc: Int32) {
        let wasConnected = connected.withLock { was in
            defer { was = false }
            return was
        }
        confined { [self] in book.online = false }
        if rc != 0 {
            if wasConnected {
                logger.warning("lost the broker; storing readings and reconnecting with backoff", [("mqtt.reason", failureReason(rc))])
            } else {
                // A connection that never came up (a TLS handshake refused after the TCP connect): an attempt failed.
                reportFailure(failureReason(rc))
            }
        }
        resumeOffline(false)
    }

    private func didPublish(_ mid: Int32) {
        if shutdownAcknowledged.withLock({ $0 == mid }) {
            resumeOffline(true)
            return
        }
        confined { [self] in
            guard let id = book.inFlight.removeValue(forKey: mid) else { return }
            book.inFlightIDs.remove(id)
            do {
                try book.store.remove(id)
            } catch {
                logger.error("cannot remove an acknowledged reading from the spool", [("error", "\(error)")])
            }
            continueReplay()
        }
    }

    /// libmosquitto's error lines: kept for the next failure report, and, while not connected, a failed
    /// attempt of their own (a TLS handshake refused in the network thread calls no other callback).
    private func didLogError(_ text: String) {
        transportError.withLock { $0 = text }
        guard !isConnected, text.contains("SSL") || text.contains("TLS") else { return }
        reportFailure(failureReason(MOSQ_ERR_TLS.rawValue))
    }

    /// Why the last connection attempt failed, in words (nil while connected or before any attempt).
    public var lastFailure: String? { failures.withLock { $0.reason } }

    /// Says why attempts fail: at once when the reason changes, then once a minute with the count, so a
    /// broker that stays away does not fill the journal.
    private func reportFailure(_ reason: String) {
        let now = SystemClock.monotonicSeconds()
        let (say, attempts) = failures.withLock { f -> (Bool, Int) in
            f.attempts += 1
            let say = f.reason != reason || now - f.loggedAt >= 60
            if say {
                f.reason = reason
                f.loggedAt = now
            }
            return (say, f.attempts)
        }
        guard say else { return }
        logger.warning("cannot connect to the broker; retrying with backoff", [
            ("mqtt.broker", "\(settings.host):\(settings.port)"), ("mqtt.reason", reason), ("mqtt.attempts", String(attempts)),
        ])
    }

    /// The result code in words, with what OpenSSL said when TLS failed.
    func failureReason(_ rc: Int32) -> String {
        let systemError = errno // before anything else can change it
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
                + "or not issued for the name \(settings.host) (mqtt.host must be a name or address the certificate lists)"
        }
        if let detail, tlsFailure, detail.contains("SSL") || detail.contains("TLS") {
            return "TLS: \(detail)"
        }
        if tlsFailure {
            // Some libmosquitto versions say only "Protocol error" for a refused handshake, and log nothing.
            return "TLS: the connection failed during the handshake (\(rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(systemError)) : Self.describe(rc))): check that mqtt.ca_file "
                + "(\(settings.tls?.caFile ?? "?")) signed the broker's certificate and that it lists \(settings.host)"
        }
        if rc == MOSQ_ERR_ERRNO.rawValue, systemError == ECONNREFUSED {
            return "connection refused: nothing listens on \(settings.host):\(settings.port) (is mosquitto running? mqtt.port?)"
        }
        return Self.describe(rc)
    }

    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        // libmosquitto's own text is "Lookup error."; say what failed and where to look.
        if rc == MOSQ_ERR_EAI.rawValue { return "cannot resolve the broker's host name (check mqtt.host, /etc/hosts and DNS)" }
        return String(cString: mosquitto_strerror(rc))
    }
}
