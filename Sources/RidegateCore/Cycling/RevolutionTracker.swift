/// One sensor's crank or wheel over time: the current revolutions per second from successive readings,
/// 0 once no new revolution has come for `staleAfter` seconds (coasting, stopped: sensors keep notifying
/// the same event time), and a fresh start, never a spike, after a reset or a long silence.
public struct RevolutionTracker: Sendable {
    public let maximumRevolutionsPerSecond: Double
    public let staleAfter: Double
    private var last: RevolutionData?
    private var lastReceivedAt: Double?
    private var lastEventAt: Double?
    private var revolutionsPerSecond: Double?
    /// The last reading's new revolutions and the event time they took (zero when it brought none): what
    /// wheel distance and wheel calibration add up.
    public private(set) var lastStep: (revolutions: Double, seconds: Double) = (0, 0)

    public init(maximumRevolutionsPerSecond: Double, staleAfter: Double = 3) {
        self.maximumRevolutionsPerSecond = maximumRevolutionsPerSecond
        self.staleAfter = staleAfter
    }

    public static func crank(staleAfter: Double = 3) -> RevolutionTracker {
        RevolutionTracker(maximumRevolutionsPerSecond: RevolutionRate.maximumCrankRevolutionsPerSecond, staleAfter: staleAfter)
    }

    public static func wheel(staleAfter: Double = 3) -> RevolutionTracker {
        RevolutionTracker(maximumRevolutionsPerSecond: RevolutionRate.maximumWheelRevolutionsPerSecond, staleAfter: staleAfter)
    }

    /// Feeds a reading received at `now` (monotonic seconds); returns the rate to show, if any yet.
    @discardableResult
    public mutating func update(_ data: RevolutionData, at now: Double) -> Double? {
        defer {
            last = data
            lastReceivedAt = now
        }
        lastStep = (0, 0)
        // The event time wraps every 65536 ticks (64 s, or 32 s for a power meter's wheel): after a silence
        // that long the difference means nothing, so start over.
        let wrapSeconds = 65536 / data.ticksPerSecond
        guard let previous = last, let received = lastReceivedAt, now - received < wrapSeconds else {
            revolutionsPerSecond = nil
            lastEventAt = now
            return nil
        }
        switch RevolutionRate.step(from: previous, to: data, maximumRevolutionsPerSecond: maximumRevolutionsPerSecond) {
        case .rate(let rate):
            revolutionsPerSecond = rate
            lastEventAt = now
            lastStep = (Double(RevolutionRate.revolutions(from: previous, to: data)), RevolutionRate.seconds(from: previous, to: data))
        case .noNewEvent:
            break
        case .restart:
            revolutionsPerSecond = nil
            lastEventAt = now
        }
        return rate(at: now)
    }

    /// The rate at `now`: the last one, or 0 when no revolution came for `staleAfter` seconds.
    public func rate(at now: Double) -> Double? {
        guard let eventAt = lastEventAt else { return nil }
        if now - eventAt > staleAfter { return 0 }
        return revolutionsPerSecond
    }
}
