/// The chunks a descriptor's reader hands to its one consumer, as an async sequence (`Handoff`'s promises:
/// in order, the end and a read error after what was read, the newest 256 kept while the consumer lags).
/// The consumer's task cancelled while it waits, or the stream let go of, ends it: its reader is told once.
public final class ChunkStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private let feed: ChunkFeed

    /// A stream and the feed its reader hands chunks to.
    static func make(onTermination: @escaping @Sendable () -> Void) -> (ChunkStream, ChunkFeed) {
        let feed = ChunkFeed(capacity: 256, onTermination: onTermination)
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
typealias ChunkFeed = Handoff<[UInt8]>
