import Glibc

/// The bytes arriving on a descriptor, as an async sequence of chunks. The event loop's epoll wakes only
/// when data is there: no polling, no thread parked in read(2).
///
/// The sequence finishes at end of file, and throws on a read error (EIO when a USB serial device is
/// unplugged). Cancelling the consuming task cancels the source, which then closes the descriptor.
public enum ReadableChunks {
    /// On `loop`: its epoll wakes for the descriptor, and the read, the consuming task and what it does next
    /// share that one wakeup.
    public static func stream(_ fd: FileDescriptor, label: String, on loop: EventLoop) -> ChunkStream {
        stream(fd, label: label, on: loop, close: { fd.close() })
    }

    /// The same for a descriptor others also use (send, shutdown): closed through `shared`, so their later
    /// uses become no-ops instead of reaching whatever reuses the number. `whenFull`: what 256 chunks unread
    /// mean (dropping the oldest, or the end with an error).
    public static func stream(_ shared: SharedDescriptor, label: String, on loop: EventLoop,
                              whenFull: HandoffOverflow = .dropOldest) -> ChunkStream {
        guard let fd = shared.use({ $0 }) else {
            return .failed(SystemCallError("read", label, .badDescriptor))
        }
        return stream(fd, label: label, on: loop, whenFull: whenFull, close: { shared.close() })
    }

    /// Chunks a consumer may fall behind by.
    public static let capacity = 256

    private static func stream(_ fd: FileDescriptor, label: String, on loop: EventLoop, whenFull: HandoffOverflow = .dropOldest,
                               close: @escaping @Sendable () -> Void) -> ChunkStream {
        do throws(Errno) {
            try fd.setNonBlocking()
        } catch {
            close()
            return .failed(SystemCallError("fcntl", label, error))
        }
        return watched(fd, label: label, on: loop, whenFull: whenFull, close: close)
    }

    private static func watched(_ fd: FileDescriptor, label: String, on loop: EventLoop, whenFull: HandoffOverflow,
                                close: @escaping @Sendable () -> Void) -> ChunkStream {
        // Ends once, on the loop's thread: stop watching before the descriptor is closed.
        let buffer = LoopReadBuffer()
        let end: @Sendable () -> Void = {
            guard buffer.end() else { return }
            loop.unwatch(fd.rawValue)
            close()
        }
        let (stream, feed) = ChunkStream.make(capacity: capacity, whenFull: whenFull, onTermination: { loop.execute(end) })
        do throws(Errno) {
            try loop.watch(fd.rawValue) { hungUp in
                // Until a short read, EAGAIN or end of file: the loop's epoll is level-triggered, so a packet
                // or a hang-up left behind is reported again.
                var readAny = false
                while true {
                    do throws(Errno) {
                        let n = try fd.read(into: buffer.bytes)
                        if n == 0 {
                            feed.finish()
                            end()
                            return
                        }
                        readAny = true
                        feed.send(Array(buffer.bytes[0..<n]))
                        // A short read took all there was. The loop is level-triggered: what arrives
                        // later, or the end, is reported again. So no read just to hear EAGAIN (one
                        // system call of a GPS epoch's few).
                        if n < buffer.bytes.count { return }
                    } catch {
                        if error == .wouldBlock {
                            // Hung up with nothing left to read: the end (epoll would report it forever).
                            if hungUp, !readAny {
                                feed.finish()
                                end()
                            }
                            return
                        }
                        feed.finish(throwing: SystemCallError("read", label, error))
                        end()
                        return
                    }
                }
            }
        } catch {
            feed.finish(throwing: SystemCallError("epoll_ctl", label, error))
            end() // closes now, once: the stream's own end will find it done
        }
        return stream
    }
}

/// The read buffer of one stream on the event loop: used only on the loop's thread, freed when the stream ends.
private final class LoopReadBuffer: @unchecked Sendable {
    // @unchecked: `bytes` is touched only on the loop's thread, between watch and unwatch; `ended` under its lock.
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
    private let ended = Locked(false)

    /// True the first time: the caller ends the stream.
    func end() -> Bool {
        ended.withLock { done in
            defer { done = true }
            return !done
        }
    }

    deinit { bytes.deallocate() }
}
