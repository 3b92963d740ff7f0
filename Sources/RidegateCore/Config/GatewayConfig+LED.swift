/// `[led]`: how the zone is shown, on which GPIO lines.
extension GatewayConfig {
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

    static func led(_ table: ConfigTableReader, ftp: Int?) throws(ConfigError) -> LED {
        var l = table
        var led = LED()
        let modeName = try l.choice("mode", default: led.mode.rawValue, allowed: LED.Mode.allCases.map(\.rawValue))
        led.mode = LED.Mode(rawValue: modeName) ?? .off
        let zoneSourceName = try l.choice("zones", default: led.zones.rawValue, allowed: ZoneSource.allCases.map(\.rawValue))
        led.zones = ZoneSource(rawValue: zoneSourceName) ?? .heartRate
        if led.zones == .power, ftp == nil {
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
        return led
    }
}
