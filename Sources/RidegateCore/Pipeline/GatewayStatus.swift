/// The gateway's state and its devices': every sensor heard of (its state, how often its link was lost, and why
/// last; what it was announced to Home Assistant with), the strap's skin contact, the GPS receiver's state, the
/// state directory's file system, and since when the gateway runs. Each update says whether anything changed,
/// so a retained state is published on a change only.
public struct GatewayStatus: Sendable {
    public struct Sensor: Sendable, Equatable {
        public fileprivate(set) var state: SensorState
        public fileprivate(set) var losses = 0
        public fileprivate(set) var lastReason: String?
    }

    private var sensors: [SensorRef: Sensor] = [:]
    public private(set) var contact: HeartRateMeasurement.SensorContact = .notSupported
    public private(set) var gps: GPSDeviceState?
    public private(set) var storage = StateStorage.writable
    /// What each sensor was announced to Home Assistant with (announced again when it measures more); at start,
    /// what an earlier run announced.
    private var announced: [SensorRef: AnnouncedSensor] = [:]
    /// Monotonic seconds of the first event.
    private var startedAt: Double?

    public init(announced: [AnnouncedSensor] = []) {
        for sensor in announced { self.announced[sensor.sensor] = sensor }
    }

    /// Seconds since the first event (which starts the count).
    public mutating func uptime(at now: Double) -> Double {
        if startedAt == nil { startedAt = now }
        return now - (startedAt ?? now)
    }

    /// The sensors as announced, in topic order.
    public var announcedSensors: [AnnouncedSensor] { announced.values.sorted { $0.sensor.topic < $1.sensor.topic } }

    /// Whether Home Assistant must hear of `sensor` again: new, renamed, or measuring more; if so it is noted.
    public mutating func announce(_ sensor: SensorRef, name: String, measures: Set<SensorMeasure>) -> Bool {
        if let known = announced[sensor], measures.isSubset(of: known.measures), known.name == name { return false }
        announced[sensor] = AnnouncedSensor(sensor: sensor, name: name, measures: measures.union(announced[sensor]?.measures ?? []))
        return true
    }

    /// The sensor's status after `state`, or nil when it was in that state already.
    public mutating func update(_ sensor: SensorRef, to state: SensorState, reason: String?) -> Sensor? {
        guard sensors[sensor]?.state != state else { return nil }
        var status = sensors[sensor] ?? Sensor(state: state)
        status.state = state
        if state == .lost { status.losses += 1 }
        if let reason { status.lastReason = reason }
        sensors[sensor] = status
        return status
    }

    /// Whether the receiver's state changed.
    public mutating func update(gps state: GPSDeviceState) -> Bool {
        guard gps != state else { return false }
        gps = state
        return true
    }

    /// Whether the state directory's file system changed.
    public mutating func update(storage newStorage: StateStorage) -> Bool {
        guard storage != newStorage else { return false }
        storage = newStorage
        return true
    }

    public mutating func update(contact newContact: HeartRateMeasurement.SensorContact) {
        contact = newContact
    }

    /// Every sensor heard of, in topic order.
    public var knownSensors: [SensorRef] { sensors.keys.sorted { $0.topic < $1.topic } }

    public var anySensorKnown: Bool { !sensors.isEmpty }

    /// Links lost, summed over the sensors of one family (straps; other sensors).
    public func losses(of family: SensorFamily) -> Int {
        sensors.filter { $0.key.kind.family == family }.values.reduce(0) { $0 + $1.losses }
    }

    /// The states of the sensors whose zones are of `source` (the straps' for heart rate).
    public func states(zonesOf source: ZoneSource) -> Set<SensorState> {
        Set(sensors.filter { $0.key.kind.zones == source }.values.map(\.state))
    }
}
