import CLinuxShim
import Glibc

/// The gateway's one thread: an epoll loop that is also the executor of the gateway's tasks, as gpsd is one
/// select loop. A GPS line wakes it once; the read, the task consuming it, the core and the sinks all run on
/// that wakeup. (A Dispatch read source on Linux costs three: its epoll manager thread, a worker, and the
/// manager again to re-arm the one-shot registration.) Timers are the epoll wait's own timeout: a loop with
/// nothing due sleeps in the kernel with no timeout at all.
///
/// Jobs enqueued from the loop's own thread wait for the current turn to end and wake nothing; from another
/// thread (the MQTT connection's worker) they wake the loop through an eventfd. Work here must not block.
public final class EventLoop: TaskExecutor, @unchecked Sendable {
    // @unchecked: `state` is only touched with its lock held; `epoll` and `wake` are immutable descriptors.
    private enum Work {
        case job(UnownedJob)
        /// A job Swift's runtime gave to its main executor: run as that executor.
        case mainJob(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct Timer {
        var due: UInt64
        var id: UInt64
        var work: Work
    }

    private struct State {
        var work: [Work] = []
        /// Ordered by due time, then by scheduling order (few at a time: a sorted array is enough).
        var timers: [Timer] = []
        var nextTimerID: UInt64 = 1
        var handlers: [Int32: @Sendable (_ hungUp: Bool) -> Void] = [:]
        /// What each watched descriptor asks for, once changed (absent: readable only, as `watch` registers it).
        var interests: [Int32: Interest] = [:]
        var running = true
        /// While the loop is inside epoll_wait: until when (UInt64.max: no timeout). Only then does new work,
        /// or a timer due earlier, need the eventfd.
        var sleepingUntil: UInt64?
        var wakeups = 0
    }

    /// The process's loop, bound by `runProcess` for every task of the program (and by `run()` for its
    /// handlers): where a command finds the loop to give its parts. The parts themselves are given theirs.
    @TaskLocal public static var current: EventLoop?

    private let epoll: Int32
    private let wake: Int32
    private let state = Locked(State())

    /// A loop that runs once a thread calls `run()` (`runProcess` makes the main thread do so). Work queued
    /// before then waits for it.
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
    }

    /// Makes the calling thread the loop that runs every job of Swift concurrency in this process (global and
    /// main executor, timers included), starts `main` as a task on it and never returns: the program ends
    /// when `main` calls exit. So an idle process has no thread that wakes: Dispatch's pool never starts.
    ///
    /// The runtime offers no supported way to replace the global executor before Swift 6.2 (SE-0466), and the
    /// Pi's toolchain is 6.0.3: the jobs come through the runtime's hooks (`swift_jobs.c`), whose signatures
    /// were checked against 6.0 to 6.3 — the fence below. A newer compiler stops the build until they are
    /// checked again (docs/architecture.md says how, and the path to SE-0466). `EventLoopProcessTests` runs the
    /// built daemon and finds one thread: a toolchain that ignored a hook would show Dispatch's.
    public static func runProcess(_ main: @escaping @Sendable (EventLoop) async -> Void) throws -> Never {
        // The loop is the one long-lived thread; the rest (the ride log's writer, a blocking connect) come
        // and go. glibc would give each its own malloc arena and keep the arena's pages after the thread
        // ended (128 KB in the demo): they share the main one. A refusal only costs that memory.
        _ = rg_one_malloc_arena()
        let loop = try EventLoop()
        // The runtime holds the loop for the rest of the process.
        let context = Unmanaged.passRetained(loop)
        #if compiler(>=6.0) && compiler(<6.4)
        let routed = rg_unsafe_try_route_swift_jobs(context.toOpaque()) { context, job, due, mainExecutor in
            guard let context, let job else { return }
            let loop = Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue()
            // UnownedJob is the runtime's job pointer, nothing more.
            let unowned = unsafeBitCast(job, to: UnownedJob.self)
            loop.submit(mainExecutor != 0 ? .mainJob(unowned) : .job(unowned), due: due)
        }
        #else
        #error("swift_jobs.c declares the executor hooks of Swift 6.0-6.3 by hand: check them against this toolchain's include/swift/Runtime/ConcurrencyHooks.def and widen the fence, or move to SE-0466 (docs/architecture.md)")
        #endif
        guard routed == 0 else {
            context.release()
            throw ExecutorTakeoverError()
        }
        Task.detached { await EventLoop.$current.withValue(loop) { await main(loop) } }
        loop.run()
        // The loop's epoll failed (said on stderr): nothing can run any more. Not 0: systemd's
        // Restart=on-failure must bring the daemon back on the bike.
        exit(EventLoop.failureExitStatus)
    }

    /// The process's exit status when its loop fails: EX_OSERR (sysexits.h), an operating system error.
    public static let failureExitStatus: Int32 = 71

    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)), due: 0)
    }

    /// Runs `body` on the loop's thread, soon.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body), due: 0)
    }

    /// Runs `body` on the loop's thread once `seconds` have passed, unless cancelled first.
    @discardableResult
    public func execute(after seconds: Double, _ body: @escaping @Sendable () -> Void) -> DeferredWork {
        let id = submit(.closure(body), due: Self.due(after: seconds))
        return DeferredWork { [self] in cancelTimer(id) }
    }

    /// Suspends the calling task for `seconds` on this loop's clock; returns early when the task is cancelled.
    public func sleep(seconds: Double) async {
        let sleeper = Locked(Sleeper())
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let cancelled = sleeper.withLock { s -> Bool in
                    s.continuation = continuation
                    return s.cancelled
                }
                guard !cancelled else { return EventLoop.wakeUp(sleeper) }
                let timer = execute(after: seconds) { EventLoop.wakeUp(sleeper) }
                sleeper.withLock { $0.timer = timer }
            }
        } onCancel: {
            let timer = sleeper.withLock { s -> DeferredWork? in
                s.cancelled = true
                return s.timer
            }
            timer?.cancel()
            Self.wakeUp(sleeper)
        }
    }

    private struct Sleeper {
        var continuation: CheckedContinuation<Void, Never>?
        var timer: DeferredWork?
        var cancelled = false
    }

    private static func wakeUp(_ sleeper: Locked<Sleeper>) {
        let continuation = sleeper.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume()
    }

    private static func due(after seconds: Double) -> UInt64 {
        let nanoseconds = seconds.isNaN ? 0 : max(0, min(seconds, 3e9)) * 1e9 // 3e9 s: "forever", no overflow
        return rg_monotonic_ns() &+ UInt64(nanoseconds)
    }

    /// Queues `work` to run now (`due` 0) or at `due` (CLOCK_MONOTONIC ns); returns the timer's id (0: none).
    @discardableResult
    private func submit(_ work: Work, due: UInt64) -> UInt64 {
        let (mustWake, id) = state.withLock { s -> (Bool, UInt64) in
            guard due > 0 else {
                s.work.append(work)
                return (s.sleepingUntil != nil, 0)
            }
            let id = s.nextTimerID
            s.nextTimerID += 1
            let at = s.timers.firstIndex { $0.due > due } ?? s.timers.endIndex
            s.timers.insert(Timer(due: due, id: id, work: work), at: at)
            return ((s.sleepingUntil ?? 0) > due, id)
        }
        if mustWake { signal() }
        return id
    }

    private func cancelTimer(_ id: UInt64) {
        state.withLock { s in
            if let index = s.timers.firstIndex(where: { $0.id == id }) { s.timers.remove(at: index) }
        }
    }

    private func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
    }

    /// Calls `readable` on the loop's thread whenever `fd` has data or has hung up (`hungUp`: EPOLLHUP or
    /// EPOLLERR, which stay reported until the descriptor is unwatched: a handler that sees it with nothing to
    /// read must end). Level-triggered, so a handler that reads until EAGAIN sees everything. Any thread.
    public func watch(_ fd: Int32, readable: @escaping @Sendable (_ hungUp: Bool) -> Void) throws(Errno) {
        state.withLock { s in
            s.handlers[fd] = readable
            s.interests[fd] = nil
        }
        guard rg_epoll_add_readable(epoll, fd) == 0 else {
            let error = Errno.current
            state.withLock { _ = $0.handlers.removeValue(forKey: fd) }
            throw error
        }
    }

    /// What, besides a hang-up, calls a watched descriptor's handler.
    public struct Interest: Equatable, Sendable {
        /// Data to read (on from `watch`). Off, the data waits in the kernel for the owner to read it on a turn
        /// it has anyway (libmosquitto's acknowledgements while readings flow); a hang-up still calls the handler.
        public var readable = true
        /// Room to write: for a connection whose output waits in user space (libmosquitto's queue). Level-
        /// triggered, so it is turned off once the output is out.
        public var writable = false
        public init(readable: Bool = true, writable: Bool = false) {
            self.readable = readable
            self.writable = writable
        }
    }

    /// Changes what calls `fd`'s handler; the kernel is asked only when it differs from what it has. Any thread.
    public func setInterest(_ fd: Int32, _ interest: Interest) {
        let changed = state.withLock { s -> Bool in
            guard s.handlers[fd] != nil, s.interests[fd, default: Interest()] != interest else { return false }
            s.interests[fd] = interest
            return true
        }
        if changed { _ = rg_epoll_interest(epoll, fd, interest.readable ? 1 : 0, interest.writable ? 1 : 0) }
    }

    /// Also calls `fd`'s handler when it can be written (`true`), or no longer (`false`).
    public func wantWritable(_ fd: Int32, _ writable: Bool) {
        var interest = state.withLock { $0.interests[fd, default: Interest()] }
        interest.writable = writable
        setInterest(fd, interest)
    }

    /// Stops calling the handler for `fd` (before it is closed).
    public func unwatch(_ fd: Int32) {
        _ = rg_epoll_remove(epoll, fd)
        state.withLock { s in
            s.handlers.removeValue(forKey: fd)
            s.interests.removeValue(forKey: fd)
        }
    }

    /// How often the loop has come back from waiting in the kernel (for data, a timer or new work): what a
    /// battery pays for. For tests and benchmarks.
    public var wakeups: Int { state.withLock { $0.wakeups } }

    /// Ends the loop after the work already queued (timers not yet due are dropped); its thread exits.
    public func stop() {
        state.withLock { $0.running = false }
        signal()
    }

    /// Runs the loop's turns on the calling thread until `stop()`: the process's main thread (`runProcess`), or
    /// a test's thread for a part used alone. Timer callbacks and descriptor handlers see the loop as `current`.
    public func run() {
        EventLoop.$current.withValue(self) { turns() }
        // What will never run lets go of what it holds (often this loop: a timer that stops it), so the loop is
        // freed, and its descriptors closed, once its holders let go.
        state.withLock { s in
            s.timers.removeAll()
            s.handlers.removeAll()
            s.interests.removeAll()
        }
    }

    /// The descriptors live as long as the loop object, not its thread: a stopped loop may still be told to
    /// stop, wake or unwatch by whoever holds it, and its numbers must not meanwhile be another socket's (an
    /// eventfd write or an epoll_ctl reaching a reused number corrupts that socket or another loop's watch).
    deinit {
        Glibc.close(wake)
        Glibc.close(epoll)
    }

    private func turns() {
        var ready = [Int32](repeating: -1, count: 32)
        var hangups = [Int32](repeating: 0, count: 32)
        // The queue is taken by swapping it with this one, emptied after each turn: the two buffers keep
        // their capacity, so a turn allocates nothing (taking a copy made the queue's own buffer shared, and
        // emptying it then allocated a new one, four times a GPS epoch).
        var work: [Work] = []
        while true {
            let (running, timeout) = takeBatch(into: &work)
            let hadWork = !work.isEmpty
            for item in work { run(item) }
            work.removeAll(keepingCapacity: true)
            // Stopping: what is already queued still runs, then the loop ends.
            if hadWork, !running { continue }
            guard running else { break }
            // A batch is what was queued when it began; between batches the descriptors and the signal pipe are
            // looked at without waiting, so a job that queues itself again and again cannot starve the GPS,
            // the sockets or a stop signal. Only an empty queue waits (a wakeup).
            let wait = hadWork ? 0 : timeout
            let count = ready.withUnsafeMutableBufferPointer { fds in
                hangups.withUnsafeMutableBufferPointer { rg_epoll_wait(epoll, fds.baseAddress, $0.baseAddress, Int32(fds.count), wait) }
            }
            state.withLock { s in
                s.sleepingUntil = nil
                if wait != 0 { s.wakeups += 1 }
            }
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
            serve(ready.prefix(Int(count)), hangups: hangups.prefix(Int(count)))
        }
    }

    /// The next batch: what was queued, and the timers now due. Also whether the loop still runs, and how long
    /// it may wait (milliseconds, -1: no timer) once the batch is done.
    private func takeBatch(into work: inout [Work]) -> (running: Bool, timeout: Int32) {
        let now = rg_monotonic_ns()
        return state.withLock { s -> (Bool, Int32) in
            swap(&work, &s.work)
            let dueCount = s.timers.prefix { $0.due <= now }.count
            if dueCount > 0 {
                for timer in s.timers.prefix(dueCount) { work.append(timer.work) }
                s.timers.removeFirst(dueCount)
            }
            let until = s.timers.first?.due ?? .max
            s.sleepingUntil = work.isEmpty && s.running ? until : nil
            // Rounded up to whole milliseconds (epoll's unit): waking early would only mean waiting again.
            let timeout = until == .max ? -1 : Int32(clamping: (until - now + 999_999) / 1_000_000)
            return (s.running, timeout)
        }
    }

    private func run(_ item: Work) {
        switch item {
        case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
        case .mainJob(let job): rg_run_main_job(unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
        case .closure(let body): body()
        }
    }

    /// The ready descriptors' handlers (the wake descriptor only wakes).
    private func serve(_ ready: ArraySlice<Int32>, hangups: ArraySlice<Int32>) {
        for (fd, hungUp) in zip(ready, hangups) {
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
}
