import CLinuxShim
import Glibc

/// Wakes when entries appear in a directory (inotify(7): IN_CREATE, IN_MOVED_TO, IN_ATTRIB), so a reader
/// waiting for an unplugged device sleeps in the kernel until udev creates the node again.
///
/// A change that happens while nobody waits is remembered, so the next wait returns at once: a device
/// that appears between a failed open and the wait is not missed.
public final class DirectoryWatcher: Sendable {
    public let directory: String
    private let loop: EventLoop
    private let descriptor: Int32
    private let state = Locked(State())

    private struct State: Sendable {
        var changed = false
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Which wait a timeout belongs to, so a late timeout cannot end a later wait.
        var wait = 0
        var timeout: DeferredWork?
    }

    /// inotify_init1(2) + inotify_add_watch(2), watched by `loop`. Fails when the directory does not exist.
    public init(directory: String, loop: EventLoop) throws(SystemCallError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError("inotify_init1", directory, .current) }
        let mask = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_ATTRIB)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let e = Errno.current
            Glibc.close(fd)
            throw SystemCallError("inotify_add_watch", directory, e)
        }
        self.directory = directory
        descriptor = fd
        self.loop = loop
        let state = state
        do throws(Errno) {
            try loop.watch(fd) { _ in
                // What changed does not matter, only that something did: drain the events and wake the waiter.
                var buffer = [UInt8](repeating: 0, count: 4096)
                while buffer.withUnsafeMutableBytes({ Glibc.read(fd, $0.baseAddress, $0.count) }) > 0 {}
                Self.wake(state) { $0.changed = true }
            }
        } catch {
            Glibc.close(fd)
            throw SystemCallError("epoll_ctl", directory, error)
        }
    }

    deinit {
        // On the loop, so a read in progress there never meets a closed (or reused) descriptor.
        let (loop, fd) = (loop, descriptor)
        loop.execute {
            loop.unwatch(fd)
            Glibc.close(fd)
        }
    }

    /// The deepest directory of `path` that exists now (a device's directory such as /dev/serial/by-id
    /// may itself appear only when the device does), or nil when not even "/" is readable.
    public static func nearestExistingDirectory(of path: String) -> String? {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        while true {
            let candidate = "/" + components.joined(separator: "/")
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return candidate }
            if components.isEmpty { return nil }
            components = components.dropLast()
        }
    }

    /// Returns after the next change in the directory (or at once if one happened since the last wait),
    /// after `timeout` seconds, or when the task is cancelled, whichever is first.
    public func waitForChange(timeout: Double) async {
        let state = state
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait: Int? = state.withLock { s in
                    if s.changed || s.cancelled {
                        s.changed = false
                        return nil
                    }
                    s.wait += 1
                    s.waiter = continuation
                    return s.wait
                }
                guard let wait else { return continuation.resume() }
                let timer = loop.execute(after: timeout) {
                    Self.wake(state, only: wait) { _ in }
                }
                state.withLock { $0.timeout = timer }
            }
        } onCancel: {
            Self.wake(state) { $0.cancelled = true }
        }
        // Woken by a change: the timeout's timer need not wake the loop later.
        let timer = state.withLock { s -> DeferredWork? in
            s.cancelled = false
            defer { s.timeout = nil }
            return s.timeout
        }
        timer?.cancel()
    }

    /// Resumes the waiter, if there is one (and, with `only`, if it is still that wait); otherwise
    /// applies `remember` so the next wait sees it.
    private static func wake(_ state: Locked<State>, only wait: Int? = nil, remember: (inout State) -> Void) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            guard let waiter = s.waiter, wait == nil || wait == s.wait else {
                if wait == nil { remember(&s) }
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
