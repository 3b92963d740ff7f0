/// The topics ridegate publishes under `<prefix>/<device_id>/`, named once (docs/mqtt.md lists each).
public struct Topic: Sendable, Hashable, CustomStringConvertible {
    /// The part after `<prefix>/<device_id>/`.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    public var description: String { name }

    public static let heartRate = Topic("heart_rate")
    public static let gps = Topic("gps")
    public static let gpsState = Topic("gps/state")
    public static let position = Topic("position")
    public static let ride = Topic("ride")
    public static let ridesLast = Topic("rides/last")
    public static let lap = Topic("lap")
    public static let sun = Topic("sun")
    public static let health = Topic("health")

    /// Retained topics that are also a ride's record (the final summary, the finished ride): kept until the broker
    /// has them, like readings, not only as the latest value in memory.
    public static func isRideRecord(_ name: String) -> Bool { name == ride.name || name == ridesLast.name }

    /// A sensor's own topics: `strap/<id>/…` for straps, `sensor/<id>/…` for the rest.
    public static func sensor(_ sensor: SensorRef, _ leaf: SensorLeaf) -> Topic { Topic("\(sensor.topic)/\(leaf.rawValue)") }

    /// The readings of a kind the core has no model of: `sensor/<id>/<kind>`.
    public static func sensorReadings(_ sensor: SensorRef) -> Topic { Topic("\(sensor.topic)/\(sensor.kind.rawValue)") }

    public enum SensorLeaf: String, Sendable {
        case state, info, power
        case speedCadence = "speed_cadence"
    }
}

extension Publication {
    public init(topic: Topic, payload: String, retain: Bool = false, qos: Int = 1, sequence: Int? = nil) {
        self.init(topic: topic.name, payload: payload, retain: retain, qos: qos, sequence: sequence)
    }
}
