import RidegateLinux

/// The sources' events on their way to the core: any task or thread may send, one consumer takes them in
/// order; `finish()` ends it once what was sent has been taken. Unbounded, as the stream it replaces.
///
/// An `AsyncStream` did this, but its code is the standard library's, unspecialised: every event looked up
/// generic type metadata (hash tables, cold after 100 ms asleep) and cost about 6 000 instructions to send
/// (callgrind, 10 Hz GPS). This one is specialised here, and a taker waits on an unsafe continuation (resumed
/// exactly once, under the lock).
final class EventChannel<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var buffer = FIFOBuffer<Element>()
        var waiter: UnsafeContinuation<Element?, Never>?
        var finished = false
    }

    private let state = Locked(State())

    /// Hands `element` to the waiting consumer, or keeps it until the consumer asks; dropped after `finish()`.
    func send(_ element: Element) {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(element)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// No more events: the consumer gets what is buffered, then nil.
    func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next event, or nil once finished and drained, or when the consumer's task is cancelled.
    func next() async -> Element? {
        if let element = state.withLock({ $0.buffer.takeFirst() }) { return element }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let answer = state.withLock { state -> Element?? in
                    if let element = state.buffer.takeFirst() { return .some(element) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
