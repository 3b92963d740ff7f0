/// Slow work that must stay in order (the ride log's SQLite writes and file exports) off the event loop, on
/// a thread that exists only while there is work: started for the first job, gone once the queue is empty.
/// So an idle daemon keeps no thread parked for it, and nothing wakes on a timer. If no thread can be
/// started, the work runs on the caller's thread rather than not at all.
public final class SerialWorker: Sendable {
    private struct State {
        var queue: [@Sendable () -> Void] = []
        var running = false
    }

    private let label: String
    private let state = Locked(State())

    public init(label: String) {
        self.label = label
    }

    /// Queues `body` behind the work already queued.
    public func async(_ body: @escaping @Sendable () -> Void) {
        let start = state.withLock { s -> Bool in
            s.queue.append(body)
            defer { s.running = true }
            return !s.running
        }
        guard start else { return }
        do {
            try BlockingThread.start(label) { [self] in drain() }
        } catch {
            drain()
        }
    }

    private func drain() {
        while let next = state.withLock({ s -> (@Sendable () -> Void)? in
            guard !s.queue.isEmpty else {
                s.running = false
                return nil
            }
            return s.queue.removeFirst()
        }) {
            next()
        }
    }
}
