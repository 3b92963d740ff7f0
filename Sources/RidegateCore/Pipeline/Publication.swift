/// One MQTT message the core wants sent. `topic` is relative to `<prefix>/<device_id>/`.
public struct Publication: Sendable, Equatable {
    public var topic: String
    public var payload: String
    public var retain: Bool
    public var qos: Int
    /// The payload's `seq`, for the sink to persist so numbering continues after a restart.
    public var sequence: Int?
    /// The topic is complete as it stands (Home Assistant's discovery topics), not under the gateway's prefix.
    public var absolute: Bool
    /// A step of a one-time change (clearing an earlier release's discovery configs): sent, in order, once the
    /// broker is reachable, until acknowledged or refused; never stored, never sent again on a later connect.
    public var oneShot: Bool

    public init(topic: String, payload: String, retain: Bool = false, qos: Int = 1, sequence: Int? = nil, absolute: Bool = false,
                oneShot: Bool = false) {
        self.absolute = absolute
        self.oneShot = oneShot
        self.sequence = sequence
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.qos = qos
    }
}

/// What the core asks of the sinks after an event.
public enum Effect: Sendable, Equatable {
    case publish(Publication)
    case showOnLED(LEDSignal)
    /// Keep this position across restarts, so the sun can be published before the first fix.
    case rememberPosition(latitude: Double, longitude: Double)
    /// Keep the sensors announced to Home Assistant across restarts: the next start announces them before they
    /// connect, and removes those no longer configured.
    case rememberAnnouncedSensors([AnnouncedSensor])
    /// Tell the service manager the gateway is up (sd_notify READY=1).
    case serviceReady
    /// Tell the service manager's watchdog the pipeline is alive (sd_notify WATCHDOG=1).
    case serviceAlive
    /// Keep this in the ride log: a point (every fix with a position, or once a second from the sensors without
    /// one), a lap's end, a sensor riding along, the ride ended.
    case record(RideLogEntry)
    /// Compare the system clock with GPS time (chrony's refclock), at most once per GPS second.
    case clockSample(ClockSample)
    /// Say this in the log (what the core found wrong with its input, already counted and rate-limited).
    case log(LogRecord)
}
