/// Everything the daemon can be told, with its defaults. Every key is documented in docs/config.md; keep
/// the two in step.
public struct GatewayConfig: Sendable, Equatable {
    /// `mqtt.prefix` and `homeassistant_prefix`: topics stay far below MQTT's 65 535 bytes and readable.
    static let longestPrefix = 200

    public struct MQTT: Sendable, Equatable {
        public var host = "localhost"
        public var port = 1883
        public var prefix = "ridegate"
        public var clientID: String?
        public var keepaliveSeconds = 30
        public var qos = 1
        public var username: String?
        public var passwordFile: String?
        public var reconnectMinSeconds = 1
        public var reconnectMaxSeconds = 30
        /// 4 for MQTT 3.1.1, 5 for MQTT 5.
        public var protocolVersion = 4
        public var caFile: String?
        public var certificateFile: String?
        public var keyFile: String?
        public var spoolMaxMegabytes = 200
        /// 0: no limit.
        public var maxHeartRatePerSecond = 0.0
        public var maxGPSPerSecond = 0.0
        public var homeAssistantDiscovery = true
        public var homeAssistantPrefix = "homeassistant"
    }

    public struct GPS: Sendable, Equatable {
        public enum Baud: Sendable, Equatable {
            case fixed(Int)
            case auto
        }

        public var enabled = true
        public var device = "/dev/ridegate-gps"
        public var baud = Baud.fixed(9600)
        /// Read the receiver through a running gpsd (its raw NMEA) instead of opening `device`.
        public var gpsd: BrokerAddress?
        /// chrony's SOCK refclock socket: GPS time sets the system clock (a Pi has no RTC). Nil: off.
        public var chronySocket: String?
    }

    public struct HeartRate: Sendable, Equatable {
        public var enabled = true
        /// Addresses (`AA:BB:CC:DD:EE:FF`), name patterns (`Polar H10*`), or `auto`.
        public var straps = ["auto"]
    }

    /// One `[[sensor]]`: a power meter, a speed/cadence sensor, or a strap, and how to pick it.
    public struct Sensor: Sendable, Equatable {
        public var kind: SensorKind
        /// An address (`AA:BB:CC:DD:EE:FF`), a name pattern (`4iiii*`), or `auto`.
        public var select: String
        /// The wheel's circumference, for speed from wheel revolutions.
        public var wheelMillimetres: Double

        public init(kind: SensorKind, select: String = "auto", wheelMillimetres: Double = SensorRef.defaultWheelMillimetres) {
            self.kind = kind
            self.select = select
            self.wheelMillimetres = wheelMillimetres
        }
    }

    public struct Zones: Sendable, Equatable {
        public enum Model: String, Sendable, CaseIterable {
            case maxHR = "max_hr"
            case reserve = "hrr"
            case lthr
            case lthr5
            case bpm
        }

        public var model = Model.maxHR
        public var maxHeartRate = 190
        public var restingHeartRate = 60
        public var lactateThreshold = 170
        public var percentages: [Double] = [50, 60, 70, 80, 90]
        public var boundaries: [Int] = []
        public var marginBPM = 2
        public var dwellSeconds = 3.0
        /// Functional threshold power (W): with it, power zones (Coggan's seven levels by default).
        public var ftp: Int?
        /// Lower bounds of power zones 2… as percentages of FTP (zone 1 starts at 1 W).
        public var powerPercentages: [Double] = [56, 76, 91, 106, 121, 151]
        public var powerMarginWatts = 10

        public var powerZones: ZoneBoundaries? { ftp.map { ZoneBoundaries.power(ftp: $0, percentages: powerPercentages) } }

        public var zones: ZoneBoundaries {
            switch model {
            case .maxHR: .percentOfMax(maxHeartRate, percentages: percentages)
            case .reserve: .percentOfReserve(max: maxHeartRate, resting: restingHeartRate, percentages: percentages)
            case .lthr: .frielSeven(lactateThreshold: lactateThreshold)
            case .lthr5: .thresholdFive(lactateThreshold: lactateThreshold)
            case .bpm: ZoneBoundaries(lowerBounds: boundaries)
            }
        }
    }

    public struct LED: Sendable, Equatable {
        public enum Mode: String, Sendable, Equatable, CaseIterable {
            case off, single, rgb, bar, console
        }

        public var mode = Mode.off
        /// Zones of heart rate, or of power (needs zones.ftp).
        public var zones = ZoneSource.heartRate
        public var chip = "gpiochip0"
        public var line: Int?
        public var lineName: String?
        public var activeLow = false
        /// rgb (red, green, blue) and bar (zone 1 first): offsets on `chip`, or names.
        public var lines: [Int] = []
        public var lineNames: [String] = []

        /// The lines to drive, by name or offset, in order.
        public var selectors: [(chip: String?, offset: Int?, name: String?)] {
            switch mode {
            case .single:
                return [lineName.map { (nil, nil, $0) } ?? (chip, line ?? 0, nil)]
            case .rgb, .bar:
                return lineNames.isEmpty ? lines.map { (chip, $0, nil) } : lineNames.map { (nil, nil, $0) }
            case .off, .console:
                return []
            }
        }
    }

    public struct Sun: Sendable, Equatable {
        public var enabled = true
        public var warningLeadMinutes = 30.0
        public var moveThresholdKilometers = 25.0
        public var publishIntervalSeconds = 60.0
    }

    public struct Ride: Sendable, Equatable {
        public var autoPauseSpeed = 1.0
        public var summaryIntervalSeconds = 10.0
        /// A fix this long after the ride log's last point starts a new ride; sooner (a restart, a stop at a
        /// café) continues it.
        public var newRideAfterMinutes = 30.0
        /// Where each finished ride is written as files (a USB stick, a synced folder); nil: no automatic export.
        public var exportDirectory: String?
        public var exportFormats: [RideFileFormat] = [.fit]
        /// Limits on the ride log: rides older than this many days go (nil: kept); over this size the oldest
        /// rides go, exported ones first.
        public var keepDays: Double?
        public var maximumMegabytes = 1024.0
        /// A lap every this many kilometres (a head unit's auto-lap); nil: laps only from the lap button.
        public var autoLapKilometers: Double?
    }

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
    public var zones = Zones()
    public var led = LED()
    public var ride = Ride()
    public var sun = Sun()
    /// `[rider]`: weight, age and sex, for calories from heart rate when no power meter rides along.
    public var rider: RiderProfile?
    /// `[button]`: the lap button on a GPIO input, when a line is given.
    public var button: Button?

    public init() {}

    /// Every BLE sensor to look for: the straps of `[heart_rate]` and every `[[sensor]]`, straps only while
    /// heart rate is enabled.
    public var bluetoothSensors: [Sensor] {
        (heartRate.enabled ? heartRate.straps.map { Sensor(kind: .heartRate, select: $0) } : [])
            + sensors.filter { $0.kind != .heartRate || heartRate.enabled }
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
        units = DisplayUnits.System(rawValue: try top.choice("units", default: units.rawValue, allowed: DisplayUnits.System.allCases.map(\.rawValue))) ?? .metric
        if top.table["clock"] != nil {
            clock = DisplayUnits.Clock(rawValue: try top.choice("clock", default: "24h", allowed: DisplayUnits.Clock.allCases.map(\.rawValue)))
        }

        var m = try top.subtable("mqtt")
        mqtt.host = try m.string("host", default: mqtt.host, maxBytes: 253) // the longest DNS name
        if let problem = BrokerAddress.hostProblem(mqtt.host) { throw m.error("host", m.table["host"], "\"\(mqtt.host)\": \(problem)") }
        mqtt.port = try m.integer("port", default: mqtt.port, range: 1...65535)
        mqtt.prefix = try m.string("prefix", default: mqtt.prefix, maxBytes: Self.longestPrefix)
        guard !mqtt.prefix.isEmpty, !mqtt.prefix.contains(where: { "#+".contains($0) }), !mqtt.prefix.hasSuffix("/") else {
            throw m.error("prefix", m.table["prefix"], "\"\(mqtt.prefix)\" is not a topic prefix; use e.g. \"ridegate\" or \"home/bike\" (no '#', '+', or trailing '/')")
        }
        mqtt.clientID = try m.optionalString("client_id", maxBytes: 128)
        if mqtt.clientID?.isEmpty == true { throw m.error("client_id", m.table["client_id"], "is empty; leave it out for ridegate-<device_id>, or name the client") }
        mqtt.keepaliveSeconds = try m.integer("keepalive_s", default: mqtt.keepaliveSeconds, range: 5...3600)
        mqtt.qos = try m.integer("qos", default: mqtt.qos, range: 0...2)
        mqtt.username = try m.optionalString("username", maxBytes: 256)
        mqtt.passwordFile = try m.optionalString("password_file")
        mqtt.reconnectMinSeconds = try m.integer("reconnect_min_s", default: mqtt.reconnectMinSeconds, range: 1...300)
        mqtt.reconnectMaxSeconds = try m.integer("reconnect_max_s", default: mqtt.reconnectMaxSeconds, range: 1...3600)
        let protocolName = try m.choice("protocol", default: "3.1.1", allowed: ["3.1.1", "5"])
        mqtt.protocolVersion = protocolName == "5" ? 5 : 4
        mqtt.caFile = try m.optionalString("ca_file")
        mqtt.certificateFile = try m.optionalString("cert_file")
        mqtt.keyFile = try m.optionalString("key_file")
        if (mqtt.certificateFile != nil || mqtt.keyFile != nil) && mqtt.caFile == nil {
            throw m.error("cert_file", m.table["cert_file"] ?? m.table["key_file"], "a client certificate needs TLS: set mqtt.ca_file to the CA that signed the broker's certificate")
        }
        if (mqtt.certificateFile == nil) != (mqtt.keyFile == nil) {
            throw m.error(mqtt.keyFile == nil ? "cert_file" : "key_file", m.table["cert_file"] ?? m.table["key_file"], "set both mqtt.cert_file and mqtt.key_file, or neither")
        }
        mqtt.homeAssistantDiscovery = try m.bool("homeassistant_discovery", default: true)
        mqtt.homeAssistantPrefix = try m.string("homeassistant_prefix", default: mqtt.homeAssistantPrefix, maxBytes: Self.longestPrefix)
        mqtt.spoolMaxMegabytes = try m.integer("spool_max_mb", default: mqtt.spoolMaxMegabytes, range: 1...100_000)
        mqtt.maxHeartRatePerSecond = try m.number("max_heart_rate_per_s", default: 0, range: 0...100)
        mqtt.maxGPSPerSecond = try m.number("max_gps_per_s", default: 0, range: 0...100)
        guard mqtt.reconnectMaxSeconds >= mqtt.reconnectMinSeconds else {
            throw m.error("reconnect_max_s", m.table["reconnect_max_s"], "\(mqtt.reconnectMaxSeconds) is below reconnect_min_s (\(mqtt.reconnectMinSeconds))")
        }
        try m.finish()

        var g = try top.subtable("gps")
        gps.enabled = try g.bool("enabled", default: gps.enabled)
        gps.device = try g.string("device", default: gps.device)
        if let node = g.node("baud") {
            switch node.value {
            case .string("auto"): gps.baud = .auto
            case .integer(let rate) where SerialBaud.supported.contains(rate): gps.baud = .fixed(rate)
            default:
                throw g.error("baud", node, "\(node.rendered) is not allowed; use one of \(SerialBaud.supported.map(String.init).joined(separator: ", ")) or \"auto\"")
            }
        }
        if let text = try g.optionalString("gpsd") {
            do throws(BrokerAddress.ParseError) {
                gps.gpsd = try BrokerAddress(parsing: text, defaultPort: 2947, what: "a gpsd address", example: "localhost:2947")
            } catch {
                throw g.error("gpsd", g.table["gpsd"], error.description)
            }
            if g.table["device"] != nil || g.table["baud"] != nil {
                throw g.error("gpsd", g.table["gpsd"], "set either gps.gpsd (read through gpsd) or gps.device/baud (open the receiver), not both")
            }
        }
        if let path = try g.optionalString("chrony_socket") {
            // sockaddr_un holds 107 bytes and a NUL.
            guard path.hasPrefix("/"), path.utf8.count <= 107 else {
                throw g.error("chrony_socket", g.table["chrony_socket"],
                              "\"\(path)\" must be an absolute path of at most 107 bytes, the one in chrony.conf's `refclock SOCK` line, e.g. \"/run/chrony.ridegate.sock\"")
            }
            gps.chronySocket = path
        }
        try g.finish()

        var h = try top.subtable("heart_rate")
        heartRate.enabled = try h.bool("enabled", default: heartRate.enabled)
        heartRate.straps = try h.strings("straps", default: heartRate.straps)
        for strap in heartRate.straps {
            if let problem = Self.selectorProblem(strap) { throw h.error("straps", h.table["straps"], problem) }
        }
        try h.finish()

        if let node = top.node("sensor") {
            guard case .array(let items) = node.value else {
                throw top.error("sensor", node, "write each sensor as its own [[sensor]] table (kind = \"power\", select = \"auto\")")
            }
            for (index, item) in items.enumerated() {
                var e = try ConfigTableReader(file: file, path: "sensor[\(index + 1)]", node: item)
                guard e.table["kind"] != nil else {
                    throw top.error("sensor", item, "sensor \(index + 1) has no kind; add kind = \"power\", \"speed_cadence\" or \"heart_rate\"")
                }
                let kindName = try e.choice("kind", default: "", allowed: SensorKind.allCases.map(\.rawValue))
                var sensor = Sensor(kind: SensorKind(rawValue: kindName) ?? .power)
                sensor.select = try e.string("select", default: "auto")
                if let problem = Self.selectorProblem(sensor.select) { throw e.error("select", e.table["select"], problem) }
                if sensor.kind == .heartRate, let wheel = e.table["wheel_mm"] {
                    throw e.error("wheel_mm", wheel, "a heart-rate strap has no wheel; wheel_mm belongs to kind \"speed_cadence\" or \"power\"")
                }
                sensor.wheelMillimetres = try e.number("wheel_mm", default: sensor.wheelMillimetres, range: 1000...3000)
                try e.finish()
                sensors.append(sensor)
            }
        }

        var z = try top.subtable("zones")
        let modelName = try z.choice("model", default: zones.model.rawValue, allowed: Zones.Model.allCases.map(\.rawValue))
        zones.model = Zones.Model(rawValue: modelName) ?? .maxHR
        zones.restingHeartRate = try z.integer("resting_hr", default: zones.restingHeartRate, range: 30...120)
        zones.lactateThreshold = try z.integer("lthr", default: zones.lactateThreshold, range: 100...220)
        if let node = z.node("boundaries_bpm") {
            guard case .array(let items) = node.value else {
                throw z.error("boundaries_bpm", node, "\(node.rendered) must be an array of heart rates, e.g. [100, 120, 140, 155, 170]")
            }
            zones.boundaries = items.compactMap { if case .integer(let i) = $0.value { i } else { nil } }
            guard zones.boundaries.count == items.count, (1...10).contains(items.count),
                  zones.boundaries.allSatisfy({ (30...240).contains($0) }), ZoneBoundaries(lowerBounds: zones.boundaries).isValid else {
                throw z.error("boundaries_bpm", node, "\(node.rendered) must be 1 to 10 strictly increasing whole heart rates from 30 to 240 bpm")
            }
        }
        if zones.model == .bpm, zones.boundaries.isEmpty {
            throw z.error("model", z.table["model"], "\"bpm\" needs zones.boundaries_bpm, the lower bound of each zone, e.g. [100, 120, 140, 155, 170]")
        }
        zones.maxHeartRate = try z.integer("max_hr", default: zones.maxHeartRate, range: 100...230)
        if zones.model == .reserve, zones.restingHeartRate >= zones.maxHeartRate - 20 {
            throw z.error("resting_hr", z.table["resting_hr"], "\(zones.restingHeartRate) leaves no heart-rate reserve below max_hr \(zones.maxHeartRate)")
        }
        zones.percentages = try z.numbers("percentages", default: zones.percentages)
        guard (1...10).contains(zones.percentages.count),
              zip(zones.percentages, zones.percentages.dropFirst()).allSatisfy({ $0 < $1 }),
              zones.percentages.allSatisfy({ (30...100).contains($0) }) else {
            throw z.error("percentages", z.table["percentages"],
                          "\(z.table["percentages"]?.rendered ?? "") must be 1 to 10 strictly increasing percentages of max_hr between 30 and 100, e.g. [50, 60, 70, 80, 90]")
        }
        zones.marginBPM = try z.integer("margin_bpm", default: zones.marginBPM, range: 0...20)
        zones.dwellSeconds = try z.number("dwell_s", default: zones.dwellSeconds, range: 0...60)
        zones.ftp = try z.optionalInteger("ftp", range: 50...2000)
        zones.powerPercentages = try z.numbers("power_percentages", default: zones.powerPercentages)
        guard (1...9).contains(zones.powerPercentages.count),
              zip(zones.powerPercentages, zones.powerPercentages.dropFirst()).allSatisfy({ $0 < $1 }),
              zones.powerPercentages.allSatisfy({ (10...300).contains($0) }) else {
            throw z.error("power_percentages", z.table["power_percentages"],
                          "\(z.table["power_percentages"]?.rendered ?? "") must be 1 to 9 strictly increasing percentages of ftp from 10 to 300 (the lower bounds of zones 2 and up), e.g. [56, 76, 91, 106, 121, 151]")
        }
        zones.powerMarginWatts = try z.integer("power_margin_w", default: zones.powerMarginWatts, range: 0...100)
        try z.finish()

        var l = try top.subtable("led")
        let modeName = try l.choice("mode", default: led.mode.rawValue, allowed: LED.Mode.allCases.map(\.rawValue))
        led.mode = LED.Mode(rawValue: modeName) ?? .off
        let zoneSourceName = try l.choice("zones", default: led.zones.rawValue, allowed: ZoneSource.allCases.map(\.rawValue))
        led.zones = ZoneSource(rawValue: zoneSourceName) ?? .heartRate
        if led.zones == .power, zones.ftp == nil {
            throw l.error("zones", l.table["zones"], "\"power\" needs your functional threshold power: set zones.ftp (watts), e.g. ftp = 250")
        }
        led.chip = try l.string("chip", default: led.chip)
        led.line = try l.optionalInteger("line", range: 0...1023)
        led.lineName = try l.optionalString("line_name")
        led.activeLow = try l.bool("active_low", default: led.activeLow)
        if let node = l.node("lines") {
            guard case .array(let items) = node.value else { throw l.error("lines", node, "\(node.rendered) must be an array of line offsets, e.g. [17, 27, 22]") }
            led.lines = items.compactMap { if case .integer(let i) = $0.value, (0...1023).contains(i) { i } else { nil } }
            guard led.lines.count == items.count else { throw l.error("lines", node, "\(node.rendered) must hold line offsets from 0 to 1023") }
        }
        led.lineNames = try l.strings("line_names", default: [])
        let common = try l.choice("common", default: "cathode", allowed: ["cathode", "anode"])
        if led.mode == .rgb, common == "anode" { led.activeLow = true } // common anode: a line lights its colour by going low
        if led.mode == .rgb || led.mode == .bar {
            let count = max(led.lines.count, led.lineNames.count)
            if !led.lines.isEmpty && !led.lineNames.isEmpty {
                throw l.error("line_names", l.table["line_names"], "set either led.lines or led.line_names, not both")
            }
            if led.mode == .rgb, count != 3 {
                throw l.error("mode", l.table["mode"], "\"rgb\" needs three lines, red, green, blue: led.line_names = [\"GPIO17\", \"GPIO27\", \"GPIO22\"] or led.lines")
            }
            if led.mode == .bar, !(2...8).contains(count) {
                throw l.error("mode", l.table["mode"], "\"bar\" needs 2 to 8 lines, zone 1 first: led.line_names = [...] or led.lines")
            }
        }
        if led.mode == .single, led.line == nil, led.lineName == nil {
            throw l.error("mode", l.table["mode"], "\"single\" needs a GPIO line: set led.line (an offset on led.chip, e.g. 17) or led.line_name (e.g. \"GPIO17\")")
        }
        if led.line != nil, led.lineName != nil {
            throw l.error("line_name", l.table["line_name"], "set either led.line or led.line_name, not both")
        }
        try l.finish()

        var r = try top.subtable("ride")
        ride.autoPauseSpeed = try r.number("auto_pause_speed_mps", default: ride.autoPauseSpeed, range: 0...10)
        ride.summaryIntervalSeconds = try r.number("summary_interval_s", default: ride.summaryIntervalSeconds, range: 1...3600)
        ride.newRideAfterMinutes = try r.number("new_ride_after_min", default: ride.newRideAfterMinutes, range: 1...1440)
        ride.exportDirectory = try r.optionalString("export_directory")
        if let directory = ride.exportDirectory, !directory.hasPrefix("/") {
            throw r.error("export_directory", r.table["export_directory"], "\"\(directory)\" must be an absolute path, e.g. \"/media/usb/rides\"")
        }
        var formats: [RideFileFormat] = []
        for name in try r.strings("export_formats", default: ride.exportFormats.map(\.rawValue)) {
            guard let format = RideFileFormat(rawValue: name) else {
                throw r.error("export_formats", r.table["export_formats"], "\"\(name)\" is not a ride file format; use \"fit\", \"gpx\" or \"tcx\"")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        ride.exportFormats = formats
        let keepDays = try r.number("keep_days", default: 0, range: 0...36_500)
        ride.keepDays = keepDays > 0 ? keepDays : nil
        ride.maximumMegabytes = try r.number("max_mb", default: ride.maximumMegabytes, range: 1...1_000_000)
        let autoLap = try r.number("auto_lap_km", default: 0, range: 0...1000)
        ride.autoLapKilometers = autoLap > 0 ? autoLap : nil
        try r.finish()
        rider = try Self.rider(try top.subtable("rider"))
        button = try Self.button(try top.subtable("button"))

        var s = try top.subtable("sun")
        sun.enabled = try s.bool("enabled", default: sun.enabled)
        sun.warningLeadMinutes = try s.number("warning_lead_min", default: sun.warningLeadMinutes, range: 0...240)
        sun.moveThresholdKilometers = try s.number("move_threshold_km", default: sun.moveThresholdKilometers, range: 0.1...1000)
        sun.publishIntervalSeconds = try s.number("publish_interval_s", default: sun.publishIntervalSeconds, range: 10...3600)
        try s.finish()

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
