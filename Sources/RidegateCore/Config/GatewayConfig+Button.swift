extension GatewayConfig {
    /// The lap button: a push button on a GPIO input. A short press marks a lap, a long one ends the ride.
    public struct Button: Sendable, Equatable {
        public var chip = "gpiochip0"
        public var line: Int?
        public var lineName: String?
        /// A button to ground with the line pulled up (the Pi's usual wiring): pressed is low. False for a
        /// button to 3.3 V with a pull-down of its own.
        public var activeLow = true
        /// Held at least this long, a press ends the ride.
        public var longPressSeconds = 2.0
    }

    /// `[button]`: none unless `line` or `line_name` is set.
    static func button(_ table: ConfigTableReader) throws(ConfigError) -> Button? {
        var b = table
        var button = Button()
        button.chip = try b.string("chip", default: button.chip)
        button.line = try b.optionalInteger("line", range: 0...1023)
        button.lineName = try b.optionalString("line_name")
        button.activeLow = try b.bool("active_low", default: button.activeLow)
        button.longPressSeconds = try b.number("long_press_s", default: button.longPressSeconds, range: 0.5...30)
        try b.finish()
        if button.line != nil, button.lineName != nil {
            throw b.error("line_name", b.table["line_name"], "set either button.line or button.line_name, not both")
        }
        guard button.line != nil || button.lineName != nil else {
            guard b.table.isEmpty else {
                throw b.error("line", nil, "the lap button needs its GPIO line: button.line (an offset on button.chip, e.g. 27) or button.line_name (e.g. \"GPIO27\")")
            }
            return nil
        }
        return button
    }
}
