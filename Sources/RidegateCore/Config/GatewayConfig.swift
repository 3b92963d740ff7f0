/// Everything the daemon can be told, with its defaults. Every key is documented in docs/config.md; keep
/// the two in step.
public struct GatewayConfig: Sendable, Equatable {
    /// `mqtt.prefix` and `homeassistant_prefix`: topics stay far below MQTT's 65 535 bytes and readable.
    static let longestPrefix = 200

    public var deviceID: String?
    /// Where the gateway keeps what must survive a restart (last position, later the spool).
    public var stateDirectory = "/var/lib/ridegate"
    public var logLevel = Logger.Level.info
    /// What a person reads (`watch`, the demo, `rides list`, `sun`): `units`; MQTT and ride files stay SI.
    public var units = DisplayUnits.System.metric
    /// `clock`: "24h" or "12h"; nil: from the locale (`LC_TIME`/`LANG`).
    public var clock: DisplayUnits.Clock?
    public var mqtt = MQTT()
    public var gps = GPS()
    public var heartRate = HeartRate()
    /// `[[sensor]]` entries: power meters, speed/cadence sensors (and straps, like `heart_rate.straps`).
    public var sensors: [Sensor] = []
    /// Where no position is published live.
    public var privacyZones = PrivacyZones()
    /// The bike as an OwnTracks device, when configured.
    public var ownTracks: OwnTracks?
    public var zones = Zones()
    public var led = LED()
    public var ride = Ride()
    public var sun = Sun()
    /// The training sites finished rides go to (none by default).
    public var upload = Upload()
    /// `[rider]`: weight, age and sex, for calories from heart rate when no power meter rides along.
    public var rider: RiderProfile?
    /// `[button]`: the lap button on a GPIO input, when a line is given.
    public var button: Button?

    public init() {}

    /// Every BLE sensor to look for: the straps of `[heart_rate]` and every `[[sensor]]`, straps only while
    /// heart rate is enabled.
    public var bluetoothSensors: [Sensor] {
        (heartRate.enabled ? heartRate.straps.map { Sensor(kind: .heartRate, select: $0) } : [])
            + sensors.filter { $0.kind.family != .strap || heartRate.enabled }
    }

    /// Validates a parsed document into a configuration.
    public init(document root: ConfigNode, file: String) throws(ConfigError) {
        var top = try ConfigTableReader(file: file, path: "", node: root)
        if let id = try top.optionalString("device_id") {
            guard DeviceID.isValid(id) else {
                throw top.error("device_id", root.tableEntry("device_id"),
                                "\"\(id)\" is not allowed; use letters, digits, '-' and '_' (it becomes part of MQTT topics)")
            }
            deviceID = id
        }
        stateDirectory = try top.string("state_directory", default: stateDirectory)
        guard stateDirectory.hasPrefix("/") else {
            throw top.error("state_directory", root.tableEntry("state_directory"), "\"\(stateDirectory)\" must be an absolute path, e.g. \"/var/lib/ridegate\"")
        }
        let levelName = try top.choice("log_level", default: "info", allowed: Logger.Level.allCases.map(\.name))
        logLevel = Logger.Level(name: levelName) ?? .info
        units =
            DisplayUnits.System(rawValue: try top.choice("units", default: units.rawValue, allowed: DisplayUnits.System.allCases.map(\.rawValue)))
            ?? .metric
        if top.table["clock"] != nil {
            clock = DisplayUnits.Clock(rawValue: try top.choice("clock", default: "24h", allowed: DisplayUnits.Clock.allCases.map(\.rawValue)))
        }
        mqtt = try Self.mqtt(try top.subtable("mqtt"))
        gps = try Self.gps(try top.subtable("gps"))
        heartRate = try Self.heartRate(try top.subtable("heart_rate"))
        sensors = try Self.sensors(&top, file: file)
        privacyZones = try Self.privacyZones(&top, file: file)
        zones = try Self.zones(try top.subtable("zones"))
        led = try Self.led(try top.subtable("led"), ftp: zones.ftp)
        ride = try Self.ride(try top.subtable("ride"))
        rider = try Self.rider(try top.subtable("rider"))
        button = try Self.button(try top.subtable("button"))
        sun = try Self.sun(try top.subtable("sun"))
        upload = try Self.upload(try top.subtable("upload"))
        ownTracks = try Self.ownTracks(try top.subtable("owntracks"))
        try top.finish()
    }
}

extension GatewayConfig {
    /// Why a sensor selector cannot be used, or nil. Something shaped like an address but not one (a missing
    /// pair, a typo) would otherwise become a name pattern that never matches.
    static func selectorProblem(_ text: String) -> String? {
        if text.isEmpty {
            return "an empty sensor entry; use an address (\"AA:BB:CC:DD:EE:FF\"), a name pattern (\"Polar*\"), or \"auto\""
        }
        let looksLikeAddress = text.contains(":") && text.allSatisfy { $0 == ":" || $0.isHexDigit }
        if looksLikeAddress, BluetoothAddress(text) == nil {
            return "\"\(text)\" looks like a Bluetooth address but is not one; write six pairs of hex digits, e.g. \"F4:12:FA:6C:3B:21\" (ridegate scan lists them)"
        }
        return nil
    }
}

extension ConfigNode {
    func tableEntry(_ key: String) -> ConfigNode? {
        guard case .table(let entries) = value else { return nil }
        return entries[key]
    }
}

public enum SerialBaud {
    /// The rates a GPS receiver may use, in the order `baud = "auto"` tries them: 9600 (most modules), 4800
    /// (old NMEA), 38400 and 115200 (u-blox, fast GNSS), then the rest.
    public static let probeOrder = [9600, 4800, 38400, 115_200, 57600, 19200, 230_400, 460_800, 921_600]
    /// The same, ascending: what `gps.baud` accepts.
    public static let supported = probeOrder.sorted()
}

public enum DeviceID {
    /// Topic-safe: no '/', '#', '+', or spaces.
    public static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }

    /// A hostname made topic-safe (dots and other characters become '-').
    public static func from(hostname: String) -> String {
        let cleaned = String(hostname.prefix(64).map { c -> Character in
            c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_") ? c : "-"
        })
        return cleaned.isEmpty ? "ridegate" : cleaned
    }
}
