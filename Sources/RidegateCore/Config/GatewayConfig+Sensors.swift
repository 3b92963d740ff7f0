/// `[gps]`, `[heart_rate]` and `[[sensor]]`: the receiver and the BLE sensors to look for.
extension GatewayConfig {
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
        public var kind: SensorProfile
        /// An address (`AA:BB:CC:DD:EE:FF`), a name pattern (`4iiii*`), or `auto`.
        public var select: String
        /// The wheel's circumference, for speed from wheel revolutions.
        public var wheelMillimetres: Double

        public init(kind: SensorProfile, select: String = "auto", wheelMillimetres: Double = SensorRef.defaultWheelMillimetres) {
            self.kind = kind
            self.select = select
            self.wheelMillimetres = wheelMillimetres
        }
    }

    static func gps(_ table: ConfigTableReader) throws(ConfigError) -> GPS {
        var g = table
        var gps = GPS()
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
        return gps
    }

    static func heartRate(_ table: ConfigTableReader) throws(ConfigError) -> HeartRate {
        var h = table
        var heartRate = HeartRate()
        heartRate.enabled = try h.bool("enabled", default: heartRate.enabled)
        heartRate.straps = try h.strings("straps", default: heartRate.straps)
        for strap in heartRate.straps {
            if let problem = Self.selectorProblem(strap) { throw h.error("straps", h.table["straps"], problem) }
        }
        try h.finish()
        return heartRate
    }

    static func sensors(_ top: inout ConfigTableReader, file: String) throws(ConfigError) -> [Sensor] {
        var sensors: [Sensor] = []
        if let node = top.node("sensor") {
            guard case .array(let items) = node.value else {
                throw top.error("sensor", node, "write each sensor as its own [[sensor]] table (kind = \"power\", select = \"auto\")")
            }
            for (index, item) in items.enumerated() {
                var e = try ConfigTableReader(file: file, path: "sensor[\(index + 1)]", node: item)
                guard e.table["kind"] != nil else {
                    throw top.error("sensor", item, "sensor \(index + 1) has no kind; add kind = \"power\", \"speed_cadence\" or \"heart_rate\"")
                }
                let kindName = try e.choice("kind", default: "", allowed: SensorProfile.builtIn.map(\.rawValue))
                var sensor = Sensor(kind: SensorProfile.named(kindName) ?? .power)
                sensor.select = try e.string("select", default: "auto")
                if let problem = Self.selectorProblem(sensor.select) { throw e.error("select", e.table["select"], problem) }
                if sensor.kind.family == .strap, let wheel = e.table["wheel_mm"] {
                    throw e.error("wheel_mm", wheel, "a heart-rate strap has no wheel; wheel_mm belongs to kind \"speed_cadence\" or \"power\"")
                }
                sensor.wheelMillimetres = try e.number("wheel_mm", default: sensor.wheelMillimetres, range: 1000...3000)
                try e.finish()
                sensors.append(sensor)
            }
        }
        return sensors
    }
}
