import CLinuxShim
import Glibc

/// Wakes when entries appear in a directory (inotify(7): IN_CREATE, IN_MOVED_TO, IN_ATTRIB), so a reader
/// waiting for an unplugged device sleeps in the kernel until udev creates the node again.
public final class DirectoryWatcher: Sendable {
    public let directory: String
    private let events: AsyncThrowingStream<[UInt8], Error>

    /// inotify_init1(2) + inotify_add_watch(2). Fails when the directory does not exist.
    public init(directory: String) throws(SystemCallError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError("inotify_init1", directory, .current) }
        let mask = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_ATTRIB)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let e = Errno.current
            Glibc.close(fd)
            throw SystemCallError("inotify_add_watch", directory, e)
        }
        self.directory = directory
        events = ReadableChunks.stream(FileDescriptor(rawValue: fd), label: "inotify:\(directory)")
    }

    /// Returns after the next change in the directory, or after `timeout` seconds, whichever is first.
    public func waitForChange(timeout: Double) async {
        let events = events
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = events.makeAsyncIterator()
                _ = try? await iterator.next()
            }
            group.addTask { try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9)) }
            await group.next()
            group.cancelAll()
        }
    }
}
