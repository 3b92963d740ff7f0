import CLinuxShim
import Glibc

/// The gateway's one thread: an epoll loop that is also the executor of the gateway's tasks, as gpsd is one
/// select loop. A GPS line wakes it once; the read, the task consuming it, the core and the sinks all run on
/// that wakeup. (A Dispatch read source on Linux costs three: its epoll manager thread, a worker, and the
/// manager again to re-arm the one-shot registration.)
///
/// Jobs enqueued from the loop's own thread wait for the current turn to end and wake nothing; from another
/// thread (a timer, the MQTT connection) they wake the loop through an eventfd. Work here must not block.
public final class EventLoop: TaskExecutor, @unchecked Sendable {
    // @unchecked: `state` is only touched with its lock held; `epoll` and `wake` are immutable descriptors.
    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct State {
        var work: [Work] = []
        var handlers: [Int32: @Sendable (_ hungUp: Bool) -> Void] = [:]
        var running = true
        /// True while the loop is inside epoll_wait: only then does new work need the eventfd.
        var sleeping = false
    }

    /// The loop the current task runs on (bound by the gateway for its tasks): read streams made there
    /// register with it instead of with Dispatch.
    @TaskLocal public static var current: EventLoop?

    private let epoll: Int32
    private let wake: Int32
    private let state = Locked(State())
    private let finished = Locked(false)

    public init() throws(SystemCallError) {
        epoll = rg_epoll_create()
        guard epoll >= 0 else { throw SystemCallError("epoll_create1", "event loop", .current) }
        wake = rg_eventfd()
        guard wake >= 0 else {
            let error = Errno.current
            Glibc.close(epoll)
            throw SystemCallError("eventfd", "event loop", error)
        }
        _ = rg_epoll_add_readable(epoll, wake)
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let loop = Unmanaged<EventLoop>.fromOpaque(raw).takeRetainedValue()
            loop.run()
            return nil
        }, box.toOpaque())
        guard started == 0 else {
            box.release()
            Glibc.close(wake)
            Glibc.close(epoll)
            throw SystemCallError("pthread_create", "event loop", Errno(rawValue: started))
        }
        pthread_detach(thread)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `body` on the loop's thread, soon.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body))
    }

    private func submit(_ work: Work) {
        let mustWake = state.withLock { s -> Bool in
            s.work.append(work)
            return s.sleeping
        }
        if mustWake { signal() }
    }

    private func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
    }

    /// Calls `readable` on the loop's thread whenever `fd` has data or has hung up (`hungUp`: EPOLLHUP or
    /// EPOLLERR, which stay reported until the descriptor is unwatched: a handler that sees it with nothing to
    /// read must end). Level-triggered, so a handler that reads until EAGAIN sees everything. Any thread.
    public func watch(_ fd: Int32, readable: @escaping @Sendable (_ hungUp: Bool) -> Void) throws(Errno) {
        state.withLock { $0.handlers[fd] = readable }
        guard rg_epoll_add_readable(epoll, fd) == 0 else {
            let error = Errno.current
            state.withLock { _ = $0.handlers.removeValue(forKey: fd) }
            throw error
        }
    }

    /// Also calls `fd`'s handler when it can be written (`true`), or no longer (`false`): for a connection whose
    /// output waits in user space (libmosquitto's queue). Level-triggered: turn it off once the output is out.
    public func wantWritable(_ fd: Int32, _ writable: Bool) {
        _ = rg_epoll_want_writable(epoll, fd, writable ? 1 : 0)
    }

    /// Stops calling the handler for `fd` (before it is closed).
    public func unwatch(_ fd: Int32) {
        _ = rg_epoll_remove(epoll, fd)
        state.withLock { _ = $0.handlers.removeValue(forKey: fd) }
    }

    /// Ends the loop after the work already queued; its thread exits.
    public func stop() {
        state.withLock { $0.running = false }
        signal()
    }

    private func run() {
        var ready = [Int32](repeating: -1, count: 32)
        var hangups = [Int32](repeating: 0, count: 32)
        while true {
            let (work, running) = state.withLock { s -> ([Work], Bool) in
                defer { s.work.removeAll(keepingCapacity: true) }
                s.sleeping = s.work.isEmpty && s.running
                return (s.work, s.running)
            }
            for item in work {
                switch item {
                case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                case .closure(let body): body()
                }
            }
            if !work.isEmpty {
                // What those jobs enqueued runs before any waiting: this turn is not over.
                state.withLock { $0.sleeping = false }
                continue
            }
            guard running else { break }
            let count = ready.withUnsafeMutableBufferPointer { fds in
                hangups.withUnsafeMutableBufferPointer { rg_epoll_wait(epoll, fds.baseAddress, $0.baseAddress, Int32(fds.count), -1) }
            }
            state.withLock { $0.sleeping = false }
            if count < 0 {
                // EINTR: wait again. Anything else means the epoll descriptor itself is gone: spinning on it
                // would burn the Pi's battery, so the loop ends (and says so on stderr, its last word).
                guard errno == EINTR else {
                    let message = Array("ridegate: the event loop's epoll failed (\(Errno.current)); stopping it\n".utf8)
                    _ = Glibc.write(2, message, message.count)
                    break
                }
                continue
            }
            for (fd, hungUp) in zip(ready.prefix(Int(count)), hangups.prefix(Int(count))) {
                if fd == wake {
                    var value: UInt64 = 0
                    _ = Glibc.read(wake, &value, 8)
                    continue
                }
                guard let handler = state.withLock({ $0.handlers[fd] }) else {
                    // Registered without a handler (it cannot stay so: level-triggered, it would report forever).
                    _ = rg_epoll_remove(epoll, fd)
                    continue
                }
                handler(hungUp != 0)
            }
        }
        Glibc.close(wake)
        Glibc.close(epoll)
    }
}
