import Glibc
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// The gateway's one thread: tasks preferring the loop run on it, and a read stream made there is served by it.
@Suite struct EventLoopTests {
    /// A socket pair whose reading end the loop watches: `byte` runs on the loop for each byte written.
    static func watchedPair(_ loop: EventLoop, byte: @escaping @Sendable () -> Void) throws -> (reader: Int32, writer: Int32) {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let reader = fds[0]
        try loop.watch(reader) { _ in
            var one: UInt8 = 0
            _ = read(reader, &one, 1)
            byte()
        }
        return (reader, fds[1])
    }

    @Test("Tasks preferring the loop run on its one thread, also after a suspension")
    func oneThread() async throws {
        let loop = try EventLoop.started()
        defer { loop.stop() }
        let threads = await withTaskExecutorPreference(loop) { () async -> [UInt] in
            var seen: [UInt] = [UInt(pthread_self())]
            for _ in 0..<3 {
                try? await Task.sleep(nanoseconds: 1_000_000)
                seen.append(UInt(pthread_self()))
            }
            await withTaskGroup(of: UInt.self) { group in
                for _ in 0..<4 { group.addTask { UInt(pthread_self()) } }
                for await t in group { seen.append(t) }
            }
            return seen
        }
        #expect(Set(threads).count == 1, "\(threads)")
    }

    @Test("A read stream made on the loop delivers every chunk, then the end, and closes the descriptor")
    func readStream() async throws {
        let loop = try EventLoop.started()
        defer { loop.stop() }
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        let reader = SharedDescriptor(FileDescriptor(rawValue: fds[0]))
        let chunks = await withTaskExecutorPreference(loop) {
            await EventLoop.$current.withValue(loop) { () async -> [[UInt8]] in
                let stream = ReadableChunks.stream(reader, label: "test", on: loop)
                for byte: UInt8 in 1...3 {
                    var b = byte
                    _ = send(fds[1], &b, 1, 0)
                }
                close(fds[1])
                var got: [[UInt8]] = []
                do { for try await chunk in stream { got.append(chunk) } } catch {}
                return got
            }
        }
        #expect(chunks == [[1], [2], [3]])
        try await TestTime.pause(0.1)
        #expect(!reader.isOpen, "the stream's end closes the descriptor")
    }

    @Test("Timers run in due order on the loop's thread, never early; a cancelled one never runs")
    func timers() async throws {
        let loop = try EventLoop.started()
        defer { loop.stop() }
        let fired = Locked<[(String, Double)]>([])
        let start = SystemClock.monotonicSeconds()
        let note: @Sendable (String) -> Void = { name in fired.withLock { $0.append((name, SystemClock.monotonicSeconds() - start)) } }
        loop.execute(after: 0.15) { note("late") }
        let cancelled = loop.execute(after: 0.05) { note("cancelled") }
        loop.execute(after: 0.02) { note("early") }
        loop.execute { note("now") }
        cancelled.cancel()
        await loop.sleep(seconds: 0.3)
        let order = fired.withLock { $0 }
        #expect(order.map(\.0) == ["now", "early", "late"], "\(order)")
        #expect((order.first { $0.0 == "late" }?.1 ?? 0) >= 0.15, "\(order)")
        #expect((order.first { $0.0 == "early" }?.1 ?? 0) >= 0.02, "\(order)")
    }

    @Test("Timer callbacks and descriptor handlers see their loop as current, so work they defer stays on it")
    func callbacksSeeTheirLoop() async throws {
        let loop = try EventLoop.started()
        defer { loop.stop() }
        let loopThread = Locked<UInt>(0)
        let seen = Locked<[(String, Bool, UInt)]>([])
        let note: @Sendable (String) -> Void = { name in
            seen.withLock { $0.append((name, EventLoop.current === loop, UInt(pthread_self()))) }
        }
        let (reader, writer) = try Self.watchedPair(loop) { note("handler") }
        defer { close(reader); close(writer) }
        loop.execute(after: 0.01) {
            loopThread.withLock { $0 = UInt(pthread_self()) }
            note("timer")
            // Re-armed from inside a timer, as the GPS watchdog does: it must run on the loop's thread too.
            loop.execute(after: 0.01) { note("deferred") }
        }
        var b: UInt8 = 1
        _ = send(writer, &b, 1, 0)
        await loop.sleep(seconds: 0.2)
        loop.unwatch(reader)
        let thread = loopThread.withLock { $0 }
        let all = seen.withLock { $0 }
        #expect(Set(all.map(\.0)) == ["handler", "timer", "deferred"], "\(all.map(\.0))")
        #expect(all.allSatisfy { $0.1 }, "\(all.map { ($0.0, $0.1) })")
        #expect(all.allSatisfy { $0.2 == thread }, "every callback on the loop's own thread")
    }

    @Test("A sleep on the loop lasts its time, and ends at once when its task is cancelled (also before it began)")
    func sleeps() async throws {
        let loop = try EventLoop.started()
        defer { loop.stop() }
        let start = SystemClock.monotonicSeconds()
        await loop.sleep(seconds: 0.1)
        #expect(SystemClock.monotonicSeconds() - start >= 0.1)

        // Each sleep is waited for 10 s at most: one that ignores its cancellation may never end, and must fail
        // the test rather than hold the suite.
        let long = Observed<Double?>(nil)
        let sleeping = Task {
            let begin = SystemClock.monotonicSeconds()
            await loop.sleep(seconds: 600)
            long.update { $0 = SystemClock.monotonicSeconds() - begin }
        }
        await loop.sleep(seconds: 0.05)
        sleeping.cancel()
        #expect(await long.wait(timeout: 10) { $0 != nil }.map { $0 < 10 } == true, "the cancelled sleep went on")

        let already = Observed<Double?>(nil)
        Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let begin = SystemClock.monotonicSeconds()
            await loop.sleep(seconds: 600)
            already.update { $0 = SystemClock.monotonicSeconds() - begin }
        }
        #expect(await already.wait(timeout: 10) { $0 != nil }.map { $0 < 10 } == true, "the sleep cancelled before it began went on")
    }

    @Test("A job that queues itself forever starves nothing: a descriptor's handler and a timer still run between its turns")
    func fairLoop() async throws {
        let loop = try EventLoop.started()
        defer { loop.stop() }
        let spinning = Locked(true)
        let turns = Locked(0)
        let handled = Locked(false)
        let timerRan = Locked(false)
        // A job that queues itself again each time it runs (a busy consumer, a bug): the queue is never empty
        // until what it would starve has run (then it stops by itself: a spinning core slows the other suites).
        @Sendable func spin() {
            turns.withLock { $0 += 1 }
            let done = handled.withLock { $0 } && timerRan.withLock { $0 }
            if spinning.withLock({ $0 }), !done { loop.execute(spin) }
        }
        // The signal pipe is such a descriptor: served between the spinning job's turns, Ctrl-C gets through.
        let (reader, writer) = try Self.watchedPair(loop) { handled.withLock { $0 = true } }
        defer { close(reader); close(writer) }
        loop.execute(after: 0.05) { timerRan.withLock { $0 = true } }
        loop.execute(spin)
        var b: UInt8 = 1
        _ = send(writer, &b, 1, 0)
        let deadline = SystemClock.monotonicSeconds() + TestTime.seconds(5)
        // Waiting without holding one of the test pool's threads (the other suites run beside this one).
        while !(handled.withLock { $0 } && timerRan.withLock { $0 }), SystemClock.monotonicSeconds() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        spinning.withLock { $0 = false }
        loop.unwatch(reader)
        #expect(handled.withLock { $0 }, "the descriptor's handler never ran while the job spun")
        #expect(timerRan.withLock { $0 }, "the timer never ran while the job spun")
        #expect(turns.withLock { $0 } > 10, "the job did spin")
    }

    @Test("A stopped loop keeps its descriptors while it is held: stopping it again writes into no socket that took their numbers")
    func stoppedLoopTouchesNoReusedDescriptor() async throws {
        let loop = try EventLoop.started()
        loop.stop()
        try await Task.sleep(nanoseconds: UInt64(TestTime.seconds(0.2) * 1e9)) // its thread ends
        // Sockets made now take the lowest free numbers: the loop's eventfd and epoll, had it closed them.
        var pairs: [[Int32]] = []
        for _ in 0..<16 {
            var fds: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            pairs.append(fds)
        }
        defer { pairs.joined().forEach { close($0) } }
        // A holder that stops it again, or cancels work on it (DeferredWork's cancel after its timer fired).
        loop.stop()
        loop.execute(after: 0) {}.cancel()
        var byte: UInt8 = 0
        let reached = pairs.joined().filter { recv($0, &byte, 1, Int32(MSG_DONTWAIT)) > 0 }
        #expect(reached.isEmpty, "the stopped loop wrote into sockets \(reached)")
    }
}
