/// Per topic: the last sequence number given (`seq`, from 1, never reused: restored at start from what the
/// `MQTTSink`'s store kept), when a rate-limited topic last went out and how many of its readings were held back,
/// and when a periodic message last went (`position`, `ride`, `health`, the clock samples); and when a
/// problem that repeats was last said.
public struct TopicLedger: Sendable {
    private var sequence: [String: Int] = [:]
    private var lastSent: [String: Timestamp] = [:]
    private var lastDue: [String: Double] = [:]
    private var problems: [String: RepeatedProblem] = [:]
    /// Readings held back by the rate limits, per topic.
    public private(set) var coalesced: [String: Int] = [:]

    public init() {}

    /// The next sequence number for `topic`.
    public mutating func next(_ topic: String) -> Int {
        let next = (sequence[topic] ?? 0) + 1
        sequence[topic] = next
        return next
    }

    /// Sequence counters kept across a restart: each topic goes on from the larger of the two.
    public mutating func restore(_ values: [String: Int]) {
        for (topic, value) in values { sequence[topic] = max(sequence[topic] ?? 0, value) }
    }

    public var sequences: [String: Int] { sequence }

    /// Rate limit: true when a message on `topic` may go at `ts`, at most one per `interval` seconds (0: every
    /// one); otherwise it is counted as coalesced. A time that went back lets the message through.
    public mutating func admit(_ topic: String, at ts: Timestamp, interval: Double) -> Bool {
        guard interval > 0 else { return true }
        if let last = lastSent[topic], ts - last < interval, ts >= last {
            coalesced[topic, default: 0] += 1
            return false
        }
        lastSent[topic] = ts
        return true
    }

    public var coalescedTotal: Int { coalesced.values.reduce(0, +) }

    /// Whether the periodic message `name` is due at `time` (seconds, of GPS time or monotonic, the caller's),
    /// `interval` after the last; when it is, `time` becomes the last. `force` makes it due; so does a time that
    /// went back, when `whenTimeWentBack` (GPS time stepping back must not silence a message for as long).
    public mutating func due(_ name: String, at time: Double, every interval: Double, whenTimeWentBack: Bool = false,
                             force: Bool = false) -> Bool {
        if !force, let last = lastDue[name], time - last < interval, !(whenTimeWentBack && time < last) { return false }
        lastDue[name] = time
        return true
    }

    /// A problem `name` that can repeat many times a second occurred at `now` (monotonic seconds): how many to say
    /// (at most once a minute), or nil.
    public mutating func repeated(_ name: String, at now: Double) -> Int? {
        problems[name, default: RepeatedProblem(interval: 60)].occurred(at: now)
    }
}
