import RidegateCore

/// Figures an adapter adds to the gateway's `health` message (the ride log's size, what it removed): set
/// by the adapter whenever they change, read by the MQTT connection each time it sends `health`.
public final class HealthFields: Sendable {
    private let values = Locked<[String: Int64]>([:])

    public init() {}

    public func set(_ key: String, _ value: Int64) {
        values.withLock { $0[key] = value }
    }

    /// The fields in key order, for the `health` message.
    public var members: [(key: String, value: Int64)] {
        values.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
