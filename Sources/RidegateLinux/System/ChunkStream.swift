/// The chunks a descriptor's reader hands to its one consumer, in order, as an async sequence: the end comes
/// after what was handed over, an error likewise. While the consumer lags, the newest 256 chunks are kept.
/// The consumer's task cancelled while it waits, or the stream let go of, ends it: `onTermination` runs once.
///
/// An `AsyncThrowingStream` did this, but its code is the standard library's, unspecialised: each chunk looked
/// up generic type metadata five times (hash tables, cold after 100 ms asleep; callgrind, 10 Hz GPS). This
/// type is concrete, and its consumer waits on an unsafe continuation, resumed exactly once under the lock.
public final class ChunkStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private let feed: ChunkFeed

    /// A stream and the feed its reader hands chunks to.
    static func make(onTermination: @escaping @Sendable () -> Void) -> (ChunkStream, ChunkFeed) {
        let feed = ChunkFeed(onTermination: onTermination)
        return (ChunkStream(feed: feed), feed)
    }

    /// A stream that has already ended with `error`.
    static func failed(_ error: any Error) -> ChunkStream {
        let (stream, feed) = make(onTermination: {})
        feed.finish(throwing: error)
        return stream
    }

    private init(feed: ChunkFeed) { self.feed = feed }

    // The consumer let go of the stream and of every iterator: nothing will read what the reader would feed.
    deinit { feed.terminate() }

    public struct AsyncIterator: AsyncIteratorProtocol {
        // Holds the stream, so the stream lasts as long as any iterator over it.
        let stream: ChunkStream

        public mutating func next() async throws -> [UInt8]? {
            try await stream.feed.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

/// The reader's end of a `ChunkStream`.
final class ChunkFeed: Sendable {
    private struct State: Sendable {
        var chunks = FIFOBuffer<[UInt8]>()
        var waiter: UnsafeContinuation<[UInt8]?, any Error>?
        /// Set once the reader is done: nil for the end of file, or what went wrong.
        var end: (any Error)??
        var onTermination: (@Sendable () -> Void)?

        static let capacity = 256
    }

    private let state: Locked<State>

    fileprivate init(onTermination: @escaping @Sendable () -> Void) {
        state = Locked(State(onTermination: onTermination))
    }

    /// Hands `chunk` to the waiting consumer, or keeps it; dropped once the stream has ended.
    func yield(_ chunk: [UInt8]) {
        let waiter = state.withLock { state -> UnsafeContinuation<[UInt8]?, any Error>? in
            guard state.end == nil, state.onTermination != nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.chunks.count == State.capacity { _ = state.chunks.takeFirst() } // the oldest goes, as bufferingNewest did
            state.chunks.append(chunk)
            return nil
        }
        waiter?.resume(returning: chunk)
    }

    /// The end of file: the consumer gets what is kept, then nil.
    func finish() { end(with: nil) }

    /// A read error: the consumer gets what is kept, then `error`.
    func finish(throwing error: any Error) { end(with: error) }

    private func end(with error: (any Error)?) {
        let waiter = state.withLock { state -> UnsafeContinuation<[UInt8]?, any Error>? in
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
    func terminate() {
        let (waiter, onTermination) = state.withLock { state in
            defer {
                state.waiter = nil
                state.onTermination = nil
                state.chunks.removeAll()
            }
            return (state.waiter, state.onTermination)
        }
        waiter?.resume(returning: nil)
        onTermination?()
    }

    /// The next chunk; nil at the end of file or once terminated; throws the reader's error after the last chunk.
    func next() async throws -> [UInt8]? {
        enum Answer { case chunk([UInt8]?), failure(any Error), wait }
        func answer(_ state: inout State) -> Answer {
            if let chunk = state.chunks.takeFirst() { return .chunk(chunk) }
            if state.onTermination == nil { return .chunk(nil) }
            switch state.end {
            case .some(.some(let error)):
                state.end = .some(nil) // thrown once; after that the sequence is over
                return .failure(error)
            case .some(.none): return .chunk(nil)
            case .none: return .wait
            }
        }
        switch state.withLock(answer) {
        case .chunk(let chunk): return chunk
        case .failure(let error): throw error
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<[UInt8]?, any Error>) in
                // Decided once, under the lock: either the continuation is left for yield, end or terminate to
                // resume, or it is resumed here, never both (a cancellation between two looks would do both).
                let now = state.withLock { state -> Answer in
                    let now = answer(&state)
                    guard case .wait = now else { return now }
                    if Task.isCancelled { return .chunk(nil) }
                    state.waiter = continuation
                    return .wait
                }
                switch now {
                case .chunk(let chunk): continuation.resume(returning: chunk)
                case .failure(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            terminate()
        }
    }
}
