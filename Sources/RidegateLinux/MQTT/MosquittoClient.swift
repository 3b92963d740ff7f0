import CMosquitto
import Glibc
import RidegateCore
import Synchronization

/// An MQTT connection through libmosquitto, whose network loop runs in its own thread
/// (mosquitto_loop_start): publishing never blocks the pipeline on the network.
///
/// The broker's status topic carries a retained `online` on every (re)connect and a retained `offline` as
/// the last will and on orderly shutdown. Messages that cannot be handed to libmosquitto while the broker
/// is unreachable wait in a bounded in-memory outbox, in order, and go out on reconnect.
public final class MosquittoClient: Sendable {
    private struct State {
        var connected = false
        var outbox: [Publication] = []
        var droppedFromOutbox = 0
        var awaitedMessage: (mid: Int32, continuation: CheckedContinuation<Bool, Never>)?
        var connectCount = 0
        var flushing = false
        /// While shutting down, acknowledgements that arrive before anyone waits for them.
        var shuttingDown = false
        var earlyAcknowledgements: Set<Int32> = []
    }

    /// libmosquitto serialises access to its handle internally (publish is thread-safe with loop_start).
    private nonisolated(unsafe) let handle: OpaquePointer
    private let settings: MQTTSettings
    private let topicPrefix: String
    private let logger: Logger
    private let state = Mutex(State())
    private let outboxLimit: Int

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    /// - Parameter topicPrefix: prepended with `/` to every publication's relative topic.
    public init(settings: MQTTSettings, topicPrefix: String, outboxLimit: Int = 10_000, logger: Logger) throws(MQTTError) {
        _ = MosquittoClient.libraryReady
        guard let mosq = mosquitto_new(settings.clientID, true, nil) else {
            throw MQTTError(operation: "new", code: errno, detail: "cannot create a client: \(Errno.current)")
        }
        handle = mosq
        self.settings = settings
        self.topicPrefix = topicPrefix
        self.logger = logger
        self.outboxLimit = outboxLimit
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())

        let offline = Array("offline".utf8)
        mosquitto_will_set(mosq, settings.statusTopic, Int32(offline.count), offline, 1, true)
        if let user = settings.username {
            mosquitto_username_pw_set(mosq, user, settings.password)
        }
        mosquitto_reconnect_delay_set(mosq, UInt32(settings.reconnectMinSeconds), UInt32(settings.reconnectMaxSeconds), true)
        mosquitto_connect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didConnect(rc)
        }
        mosquitto_disconnect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didDisconnect(rc)
        }
        mosquitto_publish_callback_set(mosq) { _, context, mid in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().didPublish(mid)
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// Starts connecting in the background; libmosquitto retries with backoff until the broker answers.
    public func start() throws(MQTTError) {
        let rc = mosquitto_connect_async(handle, settings.host, Int32(settings.port), Int32(settings.keepaliveSeconds))
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            // An unreachable broker at start is not fatal: the loop thread keeps retrying.
            logger.warning("broker not reachable yet; will keep retrying", [
                ("mqtt.broker", "\(settings.host):\(settings.port)"), ("mqtt.reason", Self.describe(rc)),
            ])
        }
        let loop = mosquitto_loop_start(handle)
        guard loop == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(operation: "loop_start", code: loop, detail: Self.describe(loop))
        }
    }

    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Hands a message to libmosquitto, or keeps it in the outbox while the broker is away.
    public func publish(_ publication: Publication) {
        let queued: Bool = state.withLock { s in
            if !s.connected || !s.outbox.isEmpty {
                s.outbox.append(publication)
                if s.outbox.count > outboxLimit {
                    s.outbox.removeFirst()
                    s.droppedFromOutbox += 1
                }
                return true
            }
            return false
        }
        if !queued, send(publication) != MOSQ_ERR_SUCCESS.rawValue {
            state.withLock { $0.outbox.append(publication) }
        }
    }

    @discardableResult
    private func send(_ p: Publication, mid: UnsafeMutablePointer<Int32>? = nil) -> Int32 {
        let topic = topicPrefix + "/" + p.topic
        var payload = p.payload
        return payload.withUTF8 { bytes in
            mosquitto_publish(handle, mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(p.qos), p.retain)
        }
    }

    /// Publishes the retained `offline` status and waits (up to `timeout` seconds) for the broker's PUBACK,
    /// then disconnects and stops the network thread. Part of the orderly shutdown.
    public func shutdown(timeout: Double = 1.5) async {
        if isConnected {
            flushOutbox()
            var mid: Int32 = 0
            state.withLock { $0.shuttingDown = true }
            let offline = Array("offline".utf8)
            let rc = mosquitto_publish(handle, &mid, settings.statusTopic, Int32(offline.count), offline, 1, true)
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                let acknowledged = await waitForAcknowledgement(mid: mid, timeout: timeout)
                if !acknowledged { logger.warning("broker did not acknowledge the offline status in time") }
            }
        }
        let pending = state.withLock { $0.outbox.count }
        if pending > 0 {
            logger.warning("messages not delivered before shutdown", [("mqtt.pending", String(pending))])
        }
        mosquitto_disconnect(handle)
        // Forced: the network thread may be sleeping out a reconnect delay.
        mosquitto_loop_stop(handle, true)
    }

    private func waitForAcknowledgement(mid: Int32, timeout: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let alreadyAcknowledged = self.state.withLock { s -> Bool in
                        if s.earlyAcknowledgements.remove(mid) != nil { return true }
                        s.awaitedMessage = (mid, continuation)
                        return false
                    }
                    if alreadyAcknowledged { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                let pending = self.state.withLock { s -> CheckedContinuation<Bool, Never>? in
                    defer { s.awaitedMessage = nil }
                    return s.awaitedMessage?.continuation
                }
                pending?.resume(returning: false)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    // MARK: callbacks, on libmosquitto's thread

    private func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            logger.error("broker refused the connection", [("mqtt.reason", String(cString: mosquitto_connack_string(rc)))])
            return
        }
        let count = state.withLock { s -> Int in
            s.connected = true
            s.connectCount += 1
            return s.connectCount
        }
        logger.info(count == 1 ? "connected to broker" : "reconnected to broker", [("mqtt.broker", "\(settings.host):\(settings.port)")])
        let online = Array("online".utf8)
        mosquitto_publish(handle, nil, settings.statusTopic, Int32(online.count), online, 1, true)
        flushOutbox()
    }

    /// Sends the outbox in order; one flusher at a time (the connect callback and shutdown may race).
    private func flushOutbox() {
        guard state.withLock({ s -> Bool in
            if s.flushing { return false }
            s.flushing = true
            return true
        }) else { return }
        defer { state.withLock { $0.flushing = false } }
        while true {
            let next: Publication? = state.withLock { s in s.connected && !s.outbox.isEmpty ? s.outbox.first : nil }
            guard let p = next else { return }
            guard send(p) == MOSQ_ERR_SUCCESS.rawValue else { return }
            state.withLock { s in if !s.outbox.isEmpty { s.outbox.removeFirst() } }
        }
    }

    private func didDisconnect(_ rc: Int32) {
        state.withLock { $0.connected = false }
        if rc != 0 {
            logger.warning("lost the broker; reconnecting with backoff", [("mqtt.reason", Self.describe(rc))])
        }
    }

    private func didPublish(_ mid: Int32) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let awaited = s.awaitedMessage, awaited.mid == mid else {
                if s.shuttingDown { s.earlyAcknowledgements.insert(mid) }
                return nil
            }
            s.awaitedMessage = nil
            return awaited.continuation
        }
        waiter?.resume(returning: true)
    }

    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(rc))
    }
}
