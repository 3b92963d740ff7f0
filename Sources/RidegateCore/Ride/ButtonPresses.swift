/// A push button's edges made into presses: a short press (a lap) or a long one (the ride ends), with the
/// contact's bounce ignored — edges within `debounce` of the press or of the release change nothing.
public struct ButtonPresses: Sendable {
    public enum Press: String, Sendable, Equatable {
        case short, long
    }

    public let debounce: Double
    public let longPress: Double
    private var pressedAt: Double?
    private var releasedAt: Double?

    public init(longPress: Double = 2, debounce: Double = 0.03) {
        self.longPress = longPress
        self.debounce = debounce
    }

    /// The button's state after an edge (`pressed`: its line active) at `time` seconds; a press when it ends.
    public mutating func edge(pressed: Bool, at time: Double) -> Press? {
        if pressed {
            // A new press, unless it is the release's bounce.
            if pressedAt == nil, releasedAt.map({ time - $0 >= debounce }) ?? true { pressedAt = time }
            return nil
        }
        guard let start = pressedAt, time - start >= debounce else { return nil } // the press's own bounce
        pressedAt = nil
        releasedAt = time
        return time - start >= longPress ? .long : .short
    }
}
