/// What a full handoff does with one more element: drop the oldest (GPS text: the newest matters), or end
/// with an error after what it keeps (ATT PDUs: a dropped response would be a 30 s timeout; a link that
/// ends with the reason is reconnected).
public enum HandoffOverflow: Sendable {
    case dropOldest
    case end(any Error)
}

/// Elements on their way from any number of senders to one consumer, in order: the end comes after what was
/// sent, with an error if the sender ends with one (thrown once). With a `capacity`, a lagging consumer gets
/// the newest that many, or the end (`whenFull`). The consumer's task cancelled while it waits, or `terminate()`, ends it for good:
/// `onTermination` runs once, and nothing more is kept.
///
/// Every channel of ridegate's is this one (a descriptor's chunks, `ChunkStream`; the gateway's events,
/// `EventChannel`; a sensor's notifications, `ATTClient.notifications`). An `AsyncStream` did the job, but its
/// code is the standard library's, unspecialised: every element looked up generic type metadata (hash tables,
/// cold after 100 ms asleep). This one is inlinable, so
/// each user gets it specialised, and the consumer waits on an unsafe continuation that is kept or resumed by
/// one decision under the lock, never both.
public final class Handoff<Element: Sendable>: Sendable {
    @usableFromInline struct State: Sendable {
        @usableFromInline var buffer = FIFOBuffer<Element>()
        @usableFromInline var waiter: UnsafeContinuation<Element?, any Error>?
        /// Set once the sender is done: nil for a plain end, or what went wrong.
        @usableFromInline var end: (any Error)??
        @usableFromInline var terminated = false
        @usableFromInline var onTermination: (@Sendable () -> Void)?

        @usableFromInline init(onTermination: (@Sendable () -> Void)?) { self.onTermination = onTermination }
    }

    @usableFromInline enum Answer {
        case element(Element?)
        case failure(any Error)
        case wait
    }

    @usableFromInline let state: Locked<State>
    @usableFromInline let capacity: Int
    @usableFromInline let whenFull: HandoffOverflow

    @inlinable public init(capacity: Int = .max, whenFull: HandoffOverflow = .dropOldest, onTermination: (@Sendable () -> Void)? = nil) {
        self.capacity = capacity
        self.whenFull = whenFull
        state = Locked(State(onTermination: onTermination))
    }

    /// Hands `element` to the waiting consumer, or keeps it; dropped once the handoff has ended.
    @inlinable public func send(_ element: Element) {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, any Error>? in
            guard state.end == nil, !state.terminated else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.buffer.count >= capacity {
                switch whenFull {
                case .dropOldest: _ = state.buffer.takeFirst()
                case .end(let overflow):
                    state.end = .some(overflow) // what is kept, then the error: nothing in between is skipped
                    return nil
                }
            }
            state.buffer.append(element)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// No more elements: the consumer gets what is kept, then nil, or `error` once.
    @inlinable public func finish(throwing error: (any Error)? = nil) {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = .some(error)
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    /// The consumer is gone or cancelled: a waiting `next` returns nil, nothing more is kept, and
    /// `onTermination` runs (the first time only).
    @inlinable public func terminate() {
        let (waiter, onTermination) = state.withLock { state in
            defer {
                state.terminated = true
                state.waiter = nil
                state.onTermination = nil
                state.buffer.removeAll()
            }
            return (state.waiter, state.onTermination)
        }
        waiter?.resume(returning: nil)
        onTermination?()
    }

    /// Whether the consumer is parked in `next()`, waiting for an element (what a test waits for before it sends).
    public var consumerIsWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// The next element; nil after the end or once terminated; the sender's error after the last element.
    @inlinable public func next() async throws -> Element? {
        switch state.withLock(Self.answer) {
        case .element(let element): return element
        case .failure(let error): throw error
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Element?, any Error>) in
                let now = state.withLock { state -> Answer in
                    let now = Self.answer(&state)
                    guard case .wait = now else { return now }
                    if Task.isCancelled { return .element(nil) }
                    state.waiter = continuation
                    return .wait
                }
                switch now {
                case .element(let element): continuation.resume(returning: element)
                case .failure(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            terminate()
        }
    }

    @inlinable static func answer(_ state: inout State) -> Answer {
        if let element = state.buffer.takeFirst() { return .element(element) }
        if state.terminated { return .element(nil) }
        switch state.end {
        case .some(.some(let error)):
            state.end = .some(nil) // thrown once; after that the sequence is over
            return .failure(error)
        case .some(.none): return .element(nil)
        case .none: return .wait
        }
    }
}
