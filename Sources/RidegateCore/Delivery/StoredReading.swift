/// A reading kept in the spool until the broker acknowledges it; `id` grows with every reading stored, so
/// ids order the backlog.
public struct StoredReading: Sendable, Equatable {
    public var id: Int64
    public var topic: String
    public var payload: String
    public var qos: Int
    /// Delivered retained: a ride's record that is also state (the final `ride` summary, `rides/last`).
    public var retain: Bool

    public init(id: Int64, topic: String, payload: String, qos: Int, retain: Bool = false) {
        self.id = id
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}
