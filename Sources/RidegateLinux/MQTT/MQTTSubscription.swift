import RidegateCore

/// A read-only MQTT connection for a command a person runs (`ridegate watch`): subscribes to one topic filter
/// and hands over what arrives, and the connection's ups and downs, as an async sequence. The daemon's own
/// connection underneath (`MosquittoConnection`, on the event loop: no thread of libmosquitto's), without a
/// status topic or a will: it publishes nothing. Retried with backoff until the broker answers, and again
/// whenever it is lost.
public final class MQTTSubscription: MQTTConnectionEvents, @unchecked Sendable {
    // @unchecked: the connection's callbacks come on the loop's thread; the continuation is thread-safe and the
    // rest is immutable.
    public enum Event: Sendable {
        case connected
        case disconnected(reason: String)
        case message(topic: String, payload: String)
    }

    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let connection: MosquittoConnection
    /// On the loop's thread: a connection that ends before CONNACK is a failed attempt, said by `attemptFailed`.
    private var connected = false

    /// `loop`: the loop the connection's socket and timers run on (the process's).
    public init(settings: MQTTSettings, filter: String, loop: EventLoop) throws(MQTTError) {
        var settings = settings
        settings.statusTopic = nil
        settings.homeAssistantStatusTopic = nil
        settings.subscriptions = [filter]
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(10_000))
        let silent = Logger(label: "mqtt", level: .critical, handler: SilentLogHandler()) // failures come as events
        connection = try MosquittoConnection(settings: settings, maxInFlight: 1, loop: loop, logger: silent)
        connection.events = self
    }

    /// Starts connecting and returns at once.
    public func start() {
        connection.start()
    }

    /// Disconnects and ends `events`.
    public func stop() async {
        await connection.close(offlineTimeout: 0)
        continuation.finish()
    }

    func connectionAccepted() {
        connected = true
        continuation.yield(.connected)
    }

    func connectionEnded() {
        guard connected else { return }
        connected = false
        continuation.yield(.disconnected(reason: "the connection was lost"))
    }

    func attemptFailed(reason: String) { continuation.yield(.disconnected(reason: reason)) }
    func received(topic: String, payload: String) { continuation.yield(.message(topic: topic, payload: payload)) }
    func acknowledged(_ acknowledgements: [MQTTAcknowledgement]) {} // it publishes nothing
}
