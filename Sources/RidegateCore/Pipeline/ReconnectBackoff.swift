/// Delays between reconnection attempts: 1 s, doubling to a ceiling (10 s for straps), reset by a
/// connection that lasted. Never zero, so a strap that drops at once cannot make a tight loop.
public struct ReconnectBackoff: Sendable, Equatable {
    public let initial: Double
    public let maximum: Double
    public private(set) var next: Double

    public init(initial: Double = 1, maximum: Double = 10) {
        self.initial = initial
        self.maximum = maximum
        next = initial
    }

    /// The delay before the next attempt; each call doubles the one after.
    public mutating func delay() -> Double {
        defer { next = min(maximum, next * 2) }
        return next
    }

    /// A connection that stayed up resets the sequence.
    public mutating func reset() { next = initial }
}
