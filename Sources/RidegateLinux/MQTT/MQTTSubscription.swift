import CMosquitto
import Dispatch
import Glibc
import RidegateCore

/// A read-only MQTT connection for a command a person runs (`ridegate watch`): subscribes to one topic
/// filter and hands over what arrives, and the connection's ups and downs, as an async sequence. Retried
/// with backoff until the broker answers; libmosquitto's own thread keeps it up after that (a tool in a
/// terminal, not the daemon: the daemon's is `MosquittoConnection`, on the event loop).
public final class MQTTSubscription: @unchecked Sendable {
    // @unchecked: `handle` is libmosquitto's (thread-safe with loop_start); the rest is immutable or Locked.
    public enum Event: Sendable {
        case connected
        case disconnected(reason: String)
        case message(topic: String, payload: String)
    }

    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private nonisolated(unsafe) let handle: OpaquePointer
    private let settings: MQTTSettings
    private let filter: String
    private let connecting = DispatchQueue(label: "ridegate.mqtt.subscription")
    private let stopped = Locked(false)
    private let loopStarted = Locked(false)

    public init(settings: MQTTSettings, filter: String) throws(MQTTError) {
        _ = mosquitto_lib_init()
        self.settings = settings
        self.filter = filter
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(10_000))
        guard let mosq = mosquitto_new(settings.clientID, true, nil) else {
            throw MQTTError(operation: "new", code: errno, detail: "cannot create a client: \(Errno.current)")
        }
        handle = mosq
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        try settings.apply(to: mosq)
        mosquitto_reconnect_delay_set(mosq, UInt32(settings.reconnectMinSeconds), UInt32(settings.reconnectMaxSeconds), true)
        mosquitto_connect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            let me = Unmanaged<MQTTSubscription>.fromOpaque(context).takeUnretainedValue()
            guard rc == 0 else {
                me.continuation.yield(.disconnected(reason: "the broker refused: " + String(cString: mosquitto_connack_string(rc))))
                return
            }
            // On every connect: a clean session forgets subscriptions, and retained messages come with it.
            mosquitto_subscribe(me.handle, nil, me.filter, 0)
            me.continuation.yield(.connected)
        }
        mosquitto_disconnect_callback_set(mosq) { _, context, rc in
            guard let context else { return }
            let me = Unmanaged<MQTTSubscription>.fromOpaque(context).takeUnretainedValue()
            me.continuation.yield(.disconnected(reason: MosquittoConnection.describe(rc)))
        }
        mosquitto_message_callback_set(mosq) { _, context, message in
            guard let context, let message else { return }
            let m = message.pointee
            guard let topic = m.topic else { return }
            let payload = m.payloadlen > 0 && m.payload != nil
                ? String(decoding: UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen)), as: UTF8.self) : ""
            Unmanaged<MQTTSubscription>.fromOpaque(context).takeUnretainedValue().continuation.yield(
                .message(topic: String(cString: topic), payload: payload))
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// Connects in the background (blocking attempts on a queue of their own, with backoff), then leaves
    /// reconnection to libmosquitto's thread.
    public func start() {
        attempt(backoff: ReconnectBackoff(initial: Double(settings.reconnectMinSeconds), maximum: Double(settings.reconnectMaxSeconds)))
    }

    private func attempt(backoff: ReconnectBackoff) {
        connecting.async { [self] in
            guard !stopped.withLock({ $0 }) else { return }
            let rc = mosquitto_connect(handle, settings.host, Int32(settings.port), Int32(settings.keepaliveSeconds))
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                loopStarted.withLock { $0 = mosquitto_loop_start(handle) == MOSQ_ERR_SUCCESS.rawValue }
                return
            }
            continuation.yield(.disconnected(reason: MosquittoConnection.describe(rc)))
            var later = backoff
            let delay = later.delay()
            let next = later
            connecting.asyncAfter(deadline: .now() + delay) { [self] in attempt(backoff: next) }
        }
    }

    /// Disconnects and ends `events`.
    public func stop() {
        stopped.withLock { $0 = true }
        connecting.sync {}
        mosquitto_disconnect(handle)
        if loopStarted.withLock({ $0 }) { mosquitto_loop_stop(handle, true) }
        continuation.finish()
    }
}
