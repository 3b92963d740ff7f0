/// A problem that can repeat many times a second (a strap sending malformed notifications): said the first
/// time, then at most once per `interval` seconds with how many happened since, so the log says it and counts
/// it without drowning. Pure: the caller passes the time.
public struct RepeatedProblem: Sendable {
    public let interval: Double
    private var lastReport: Double?
    private var unreported = 0
    public private(set) var total = 0

    public init(interval: Double = 60) {
        self.interval = interval
    }

    /// Counts one occurrence at `now` (monotonic seconds); returns how many to report (this one and those held
    /// back), or nil when it is not time to say anything.
    public mutating func occurred(at now: Double) -> Int? {
        total += 1
        unreported += 1
        if let last = lastReport, now - last < interval, now >= last { return nil }
        lastReport = now
        defer { unreported = 0 }
        return unreported
    }
}
