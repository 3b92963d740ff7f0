/// When a source saw something: the monotonic clock (for intervals, never jumps) and the system's wall
/// clock (a Pi without RTC or network may be years off until GPS sets the reference).
public struct ReceiveTime: Sendable, Equatable {
    public var monotonicSeconds: Double
    public var system: Timestamp

    public init(monotonicSeconds: Double, system: Timestamp) {
        self.monotonicSeconds = monotonicSeconds
        self.system = system
    }
}

/// Everything the sources tell the core. Sources only observe; the core decides what it means.
public enum SourceEvent: Sendable {
    /// A BLE sensor's measurement, as its kind's profile decoded it (`SensorProfile.decode`).
    case sensorMeasurement(SensorRef, SensorMeasurement, at: ReceiveTime)
    /// A notification its kind's decoder could not read, and why (the source logs it with its bytes).
    case sensorUndecodable(SensorRef, String, at: ReceiveTime)
    /// A BLE sensor's link; `reason` says why it was lost (for the state topic and the logs).
    case sensorState(SensorRef, SensorState, reason: String? = nil, at: ReceiveTime)
    case sensorDetails(SensorRef, SensorDetails, at: ReceiveTime)
    case gpsFix(GPSFix, at: ReceiveTime)
    case gpsState(GPSDeviceState, at: ReceiveTime)
    /// Where the bike was when the gateway last ran (from the state directory), before any fix.
    case lastKnownPosition(latitude: Double, longitude: Double, at: ReceiveTime)
    /// The service manager's watchdog asks whether the pipeline still moves.
    case watchdogTick(at: ReceiveTime)
    /// The lap button: a short press marks a lap, a long one ends the ride.
    case lapButton(ButtonPresses.Press, at: ReceiveTime)
    /// Whether the state directory's file system takes writes (said at start when it does not, and on change).
    case stateStorage(StateStorage, at: ReceiveTime)
    /// A replayed recording (the demo's) has reached its end: so has its ride in the ride log (the live totals
    /// stay until the stop, as after any ride).
    case recordingEnded(at: ReceiveTime)
}

/// The state directory's file system. A state partition fsck could not repair after a power cut comes up
/// read-only (or ext4 remounts it so on an error): the ride then lives in memory only, and the rider should know.
public enum StateStorage: String, Sendable {
    case writable
    case readOnly = "read_only"
}

/// A BLE sensor's link (strap, power meter, speed/cadence sensor).
public enum SensorState: String, Sendable {
    case searching, connecting, connected, lost
    /// The gateway stopped in order and let the sensor go (the last retained state after a stop).
    case stopped
}

public enum GPSDeviceState: String, Sendable, CaseIterable {
    /// Fixes with a position are arriving.
    case ok
    /// Valid NMEA, but no position yet (cold start, indoors).
    case noFix = "no_fix"
    /// The device node is absent (unplugged, wrong path).
    case noDevice = "no_device"
    /// The device is open but nothing parseable arrives (wrong baud, wiring).
    case noData = "no_data"
    /// The gateway stopped in order and closed the device (the last retained state after a stop).
    case stopped
}

/// What a sensor says about itself over GATT.
public struct SensorDetails: Sendable, Equatable {
    public var name: String?
    /// Body Sensor Location (0x2A38, straps): chest, wrist, finger…
    public var bodyLocation: String?
    /// Sensor Location (0x2A5D, cycling sensors): left_crank, rear_wheel…
    public var sensorLocation: String?
    public var batteryPercent: Int?
    /// Device Information (0x180A): Manufacturer Name (0x2A29), Model Number (0x2A24), Serial Number (0x2A25).
    public var manufacturer: String?
    public var model: String?
    public var serialNumber: String?
    /// What the device measures, from its services and feature characteristics (0x2A5C, 0x2A65).
    public var measures: Set<SensorMeasure> = []

    public init(name: String? = nil, bodyLocation: String? = nil, batteryPercent: Int? = nil, measures: Set<SensorMeasure> = []) {
        self.name = name
        self.bodyLocation = bodyLocation
        self.batteryPercent = batteryPercent
        self.measures = measures
    }

    /// Heart Rate Service 1.0 §3.2.1.
    public static func bodyLocationName(_ code: UInt8) -> String {
        switch code {
        case 0: "other"
        case 1: "chest"
        case 2: "wrist"
        case 3: "finger"
        case 4: "hand"
        case 5: "ear_lobe"
        case 6: "foot"
        default: "unknown"
        }
    }
}

extension SourceEvent {
    public var receiveTime: ReceiveTime {
        switch self {
        case .sensorMeasurement(_, _, let at), .sensorUndecodable(_, _, let at), .sensorState(_, _, _, let at),
             .sensorDetails(_, _, let at), .gpsFix(_, let at), .gpsState(_, let at), .lastKnownPosition(_, _, let at),
             .watchdogTick(let at), .lapButton(_, let at), .stateStorage(_, let at), .recordingEnded(let at):
            return at
        }
    }
}
