/// Delays between reconnection attempts: 1 s, doubling to a ceiling (10 s for straps), reset by a
/// connection that lasted. Never zero, so a strap that drops at once cannot make a tight loop.
///
/// A broker serves many gateways: `jittered` spreads each delay over its whole window ("full jitter"), so a
/// fleet that lost the broker together does not come back, and replay its backlogs, in the same instant.
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

    /// The shortest jittered delay: a retry is never immediate.
    public static let shortestJittered = 0.1

    /// The next delay's bound (as `delay()`), taken at `unit` of it: `unit` a random number in [0, 1), the
    /// caller's (the core draws none). At least `shortestJittered`.
    public mutating func jittered(_ unit: Double) -> Double {
        let bound = delay()
        let fraction = unit.isFinite ? min(max(unit, 0), 1) : 1
        return max(Self.shortestJittered, bound * fraction)
    }

    /// A connection that stayed up resets the sequence.
    public mutating func reset() { next = initial }
}
