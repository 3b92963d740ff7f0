/// A repeating on/off timeline for one LED, in milliseconds. Pure: the driver asks it for the level now
/// and the time of the next edge, and sleeps until then (one timer, no polling).
public struct BlinkPattern: Sendable, Equatable {
    /// (duration in ms, LED on) steps, repeated forever. Empty means steadily off.
    public let steps: [(milliseconds: Int, on: Bool)]

    public init(_ steps: [(milliseconds: Int, on: Bool)]) {
        self.steps = steps.filter { $0.milliseconds > 0 }
    }

    public static let off = BlinkPattern([])
    public static let steadyOn = BlinkPattern([(1000, true)])

    public var periodMilliseconds: Int { steps.reduce(0) { $0 + $1.milliseconds } }

    public static func == (lhs: BlinkPattern, rhs: BlinkPattern) -> Bool {
        lhs.steps.count == rhs.steps.count
            && zip(lhs.steps, rhs.steps).allSatisfy { $0.milliseconds == $1.milliseconds && $0.on == $1.on }
    }

    /// Whether the LED is lit `elapsed` ms after the pattern started.
    public func isOn(atMilliseconds elapsed: Int) -> Bool {
        step(at: elapsed).on
    }

    /// How long after `elapsed` the level next changes; nil when it never does.
    public func millisecondsToNextEdge(after elapsed: Int) -> Int? {
        guard !steps.isEmpty, steps.contains(where: { $0.on }), steps.contains(where: { !$0.on }) else { return nil }
        let position = step(at: elapsed)
        var remaining = position.remaining
        var index = (position.index + 1) % steps.count
        // Adjacent steps with the same level are not an edge.
        while steps[index].on == position.on {
            remaining += steps[index].milliseconds
            index = (index + 1) % steps.count
        }
        return remaining
    }

    /// The edges over one period, as (offset ms, new level): what a test or a wiring check inspects.
    public var edges: [(milliseconds: Int, on: Bool)] {
        var result: [(Int, Bool)] = []
        var offset = 0
        var level: Bool?
        for step in steps {
            if step.on != level { result.append((offset, step.on)) }
            level = step.on
            offset += step.milliseconds
        }
        return result
    }

    private func step(at elapsed: Int) -> (index: Int, on: Bool, remaining: Int) {
        let period = periodMilliseconds
        guard period > 0 else { return (0, false, Int.max) }
        var t = elapsed % period
        if t < 0 { t += period }
        for (index, step) in steps.enumerated() {
            if t < step.milliseconds { return (index, step.on, step.milliseconds - t) }
            t -= step.milliseconds
        }
        return (0, steps[0].on, steps[0].milliseconds)
    }
}
