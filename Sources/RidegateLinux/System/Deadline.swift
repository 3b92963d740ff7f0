/// How work run against a deadline ended.
public enum DeadlineOutcome<T: Sendable>: Sendable {
    case finished(T)
    /// The seconds passed first; the work was cancelled.
    case deadline
    /// `stop` yielded first (a termination signal); the work was cancelled.
    case stopped

    /// The work's result, or `fallback` when it did not finish.
    public func value(or fallback: T) -> T {
        if case .finished(let value) = self { return value }
        return fallback
    }
}

/// The one way ridegate races work against time: `work` runs until it finishes, `seconds` pass (nil: no
/// limit) or `stop` yields, whichever comes first, and the others are cancelled. Used for the scans of
/// `ridegate scan` and `doctor`, the GPS baud-rate probe, `led test` (until a signal).
/// The seconds are `loop`'s timer.
public func withDeadline<T: Sendable>(seconds: Double?, on loop: EventLoop, stop: AsyncStream<Int32>? = nil,
                                      _ work: @escaping @Sendable () async -> T) async -> DeadlineOutcome<T> {
    await withTaskGroup(of: DeadlineOutcome<T>.self) { group in
        group.addTask { .finished(await work()) }
        if let seconds {
            group.addTask {
                await loop.sleep(seconds: seconds)
                return .deadline
            }
        }
        if let stop {
            group.addTask {
                for await _ in stop { return .stopped }
                return .deadline // the signal stream ended: treat as the end of waiting
            }
        }
        let first = await group.next() ?? .deadline
        group.cancelAll()
        return first
    }
}
