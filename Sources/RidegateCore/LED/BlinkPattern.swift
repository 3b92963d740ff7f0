/// A repeating timeline for the LED lines, in milliseconds: each step says which lines are lit (a bit
/// per line: one LED uses bit 0; RGB uses red 1, green 2, blue 4; a bar uses one bit per zone). Pure: the
/// driver asks it for the lines lit now and the time of the next change, and sleeps until then (one
/// timer, no polling).
public struct BlinkPattern: Sendable, Equatable {
    /// (duration in ms, lit lines) steps, repeated forever. Empty means everything off.
    public let frames: [(milliseconds: Int, lines: UInt8)]

    public init(frames: [(milliseconds: Int, lines: UInt8)]) {
        self.frames = frames.filter { $0.milliseconds > 0 }
    }

    /// One LED: (duration, on) steps.
    public init(_ steps: [(milliseconds: Int, on: Bool)]) {
        self.init(frames: steps.map { ($0.milliseconds, $0.on ? 1 : 0) })
    }

    /// The same lines lit all the time.
    public static func steady(_ lines: UInt8) -> BlinkPattern { BlinkPattern(frames: [(1000, lines)]) }

    public static let off = BlinkPattern(frames: [])
    public static let steadyOn = BlinkPattern.steady(1)

    /// The steps as on/off (any line lit), for one-LED patterns.
    public var steps: [(milliseconds: Int, on: Bool)] { frames.map { ($0.milliseconds, $0.lines != 0) } }

    public var periodMilliseconds: Int { frames.reduce(0) { $0 + $1.milliseconds } }

    public static func == (lhs: BlinkPattern, rhs: BlinkPattern) -> Bool {
        lhs.frames.count == rhs.frames.count
            && zip(lhs.frames, rhs.frames).allSatisfy { $0.milliseconds == $1.milliseconds && $0.lines == $1.lines }
    }

    /// The lines lit `elapsed` ms after the pattern started.
    public func lines(atMilliseconds elapsed: Int) -> UInt8 {
        frame(at: elapsed).lines
    }

    /// Whether any line is lit `elapsed` ms after the pattern started.
    public func isOn(atMilliseconds elapsed: Int) -> Bool {
        lines(atMilliseconds: elapsed) != 0
    }

    /// How long after `elapsed` the lit lines next change; nil when they never do.
    public func millisecondsToNextEdge(after elapsed: Int) -> Int? {
        guard let first = frames.first, frames.contains(where: { $0.lines != first.lines }) else { return nil }
        let position = frame(at: elapsed)
        var remaining = position.remaining
        var index = (position.index + 1) % frames.count
        // Adjacent steps with the same lines are not an edge.
        while frames[index].lines == position.lines {
            remaining += frames[index].milliseconds
            index = (index + 1) % frames.count
        }
        return remaining
    }

    /// The changes over one period, as (offset ms, lit): what a test or a wiring check inspects.
    public var edges: [(milliseconds: Int, on: Bool)] {
        var result: [(Int, Bool)] = []
        var offset = 0
        var level: UInt8?
        for frame in frames {
            if frame.lines != level { result.append((offset, frame.lines != 0)) }
            level = frame.lines
            offset += frame.milliseconds
        }
        return result
    }

    private func frame(at elapsed: Int) -> (index: Int, lines: UInt8, remaining: Int) {
        let period = periodMilliseconds
        guard period > 0 else { return (0, 0, Int.max) }
        var t = elapsed % period
        if t < 0 { t += period }
        for (index, frame) in frames.enumerated() {
            if t < frame.milliseconds { return (index, frame.lines, frame.milliseconds - t) }
            t -= frame.milliseconds
        }
        return (0, frames[0].lines, frames[0].milliseconds)
    }
}
