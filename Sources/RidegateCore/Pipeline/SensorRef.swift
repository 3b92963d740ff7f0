/// Which configured BLE sensor an event is about: the kind it was configured as (which decides its topics),
/// the id it is published under (its address, topic-safe), and the wheel it measures.
public struct SensorRef: Sendable, Hashable {
    public var kind: SensorProfile
    public var id: String
    /// The wheel's circumference for speed from wheel revolutions (speed sensors, power meters with wheel data).
    public var wheelMillimetres: Double

    public static let defaultWheelMillimetres = 2105.0 // 700×25C

    public init(kind: SensorProfile, id: String, wheelMillimetres: Double = SensorRef.defaultWheelMillimetres) {
        self.kind = kind
        self.id = id
        self.wheelMillimetres = wheelMillimetres
    }

    /// A heart-rate strap (the events of earlier releases named straps by id alone).
    public static func strap(_ id: String) -> SensorRef { SensorRef(kind: .heartRate, id: id) }

    /// The topic family: `strap/<id>` for heart-rate straps (as in every earlier release), `sensor/<id>` for
    /// power meters and speed/cadence sensors.
    public var topic: String { "\(kind.topicFamily)/\(id)" }
}
