/// What one consumer reads from a `Handoff`, as an async sequence (`Handoff`'s promises: in order, the end and
/// an error after what was sent; when the consumer lags, the oldest dropped or the stream ended, as made).
/// The consumer's task cancelled while it waits, or the stream let go of, ends it: its sender is told once.
/// Inlinable, so each element type gets it specialised (`AsyncStream`'s code looked up generic type metadata
/// for every element).
public final class HandoffStream<Element: Sendable>: AsyncSequence, Sendable {
    @usableFromInline let handoff: Handoff<Element>

    /// A stream and the handoff its sender sends to.
    @inlinable public static func make(capacity: Int, whenFull: HandoffOverflow = .dropOldest,
                                       onTermination: (@Sendable () -> Void)? = nil) -> (HandoffStream, Handoff<Element>) {
        let handoff = Handoff<Element>(capacity: capacity, whenFull: whenFull, onTermination: onTermination)
        return (HandoffStream(handoff: handoff), handoff)
    }

    /// A stream that has already ended with `error`.
    public static func failed(_ error: any Error) -> HandoffStream {
        let (stream, handoff) = make(capacity: 1)
        handoff.finish(throwing: error)
        return stream
    }

    @inlinable init(handoff: Handoff<Element>) { self.handoff = handoff }

    // The consumer let go of the stream and of every iterator: nothing will read what the sender would send.
    deinit { handoff.terminate() }

    public struct AsyncIterator: AsyncIteratorProtocol {
        // Holds the stream, so the stream lasts as long as any iterator over it.
        @usableFromInline let stream: HandoffStream

        @inlinable init(stream: HandoffStream) { self.stream = stream }

        @inlinable public mutating func next() async throws -> Element? {
            try await stream.handoff.next()
        }
    }

    @inlinable public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

/// The chunks a descriptor's reader hands to its one consumer (`ReadableChunks`).
public typealias ChunkStream = HandoffStream<[UInt8]>
/// The reader's end of a `ChunkStream`.
typealias ChunkFeed = Handoff<[UInt8]>
