/// Attempts that keep failing (a broker that stays away), each with a reason: a reason is said the first time
/// it is seen, then the failures are said at most once per `interval` with the count of attempts. Remembering
/// every reason said (not only the last) keeps two reasons that alternate — a refused handshake that sometimes
/// ends as a reset — from being said once per attempt. Pure: the caller passes the time.
public struct RepeatedFailures: Sendable {
    public let interval: Double
    public private(set) var attempts = 0
    public private(set) var lastReason: String?
    private var said: Set<String> = []
    private var lastReport: Double?

    public init(interval: Double = 60) {
        self.interval = interval
    }

    /// Counts one failed attempt at `now` (monotonic seconds); true when it should be said.
    public mutating func failed(_ reason: String, at now: Double) -> Bool {
        attempts += 1
        lastReason = reason
        let due = lastReport.map { now - $0 >= interval || now < $0 } ?? true
        guard due || !said.contains(reason) else { return false }
        said.insert(reason)
        lastReport = now
        return true
    }

    /// A success: the next failure is news again.
    public mutating func succeeded() {
        self = RepeatedFailures(interval: interval)
    }
}
