import RidegateCore

/// Figures an adapter adds to the gateway's `health` message (the ride log's size, what it removed, whether it
/// can be written): set by the adapter whenever they change, read by the MQTT connection each time it sends
/// `health`.
public final class HealthFields: Sendable {
    public enum Value: Sendable, Equatable {
        case number(Int64)
        case text(String)
    }

    private let values = Locked<[String: Value]>([:])

    public init() {}

    public func set(_ key: String, _ value: Int64) {
        values.withLock { $0[key] = .number(value) }
    }

    public func set(_ key: String, _ text: String) {
        values.withLock { $0[key] = .text(text) }
    }

    /// The fields in key order, for the `health` message.
    public var members: [(key: String, value: Value)] {
        values.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Adds the fields to a JSON object.
    public func add(to json: inout JSONObjectWriter) {
        for (key, value) in members {
            switch value {
            case .number(let number): json.add(key, Int(number))
            case .text(let text): json.add(key, text)
            }
        }
    }
}
