import Glibc
import RidegateLinux
import RidegateTestSupport
import Testing

/// What a descriptor's stream of chunks promises its consumer (`ChunkStream`, made by `ReadableChunks` on a
/// loop of its own here): order, the end after what was read, errors once, and the descriptor closed once the
/// consumer is gone or cancelled.
@Suite struct HandoffStreamTests {
    /// A SOCK_SEQPACKET pair: each packet sent is one chunk read.
    func packets() throws -> (reader: SharedDescriptor, writer: Int32) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SystemCallError("socketpair", "test", .current)
        }
        return (SharedDescriptor(FileDescriptor(rawValue: fds[0])), fds[1])
    }

    func send(_ writer: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(writer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Until nothing waits in `fd` (the loop has read it all), or `seconds` pass.
    func drained(_ fd: Int32, within seconds: Double) async throws -> Bool {
        let deadline = SystemClock.monotonicSeconds() + TestTime.seconds(seconds)
        // Looked at once more after the deadline: a test held up past it (the suite's threads busy) still sees the
        // socket as it is, not as it was when it last looked.
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 0) == 0 { return true }
            guard SystemClock.monotonicSeconds() < deadline else { return false }
            try await TestTime.pause(0.01)
        }
    }

    /// Until the descriptor the stream read is closed, or `seconds` pass.
    func closed(_ reader: SharedDescriptor, within seconds: Double) async throws -> Bool {
        let deadline = SystemClock.monotonicSeconds() + TestTime.seconds(seconds)
        while reader.isOpen {
            guard SystemClock.monotonicSeconds() < deadline else { return !reader.isOpen }
            try await TestTime.pause(0.01)
        }
        return true
    }

    @Test("Chunks read before the consumer asks wait for it, in order, the end after them; one that lags gets the newest 256")
    func laggingConsumer() async throws {
        let loop = try EventLoop.started()
        let (reader, writer) = try packets()
        let stream = ReadableChunks.stream(reader, label: "test", on: loop)
        for n in 0..<300 { send(writer, [UInt8(n >> 8), UInt8(n & 0xFF)]) }
        #expect(try await drained(reader.use { $0.rawValue } ?? -1, within: 10))
        try await TestTime.pause(0.1)
        close(writer)
        var got: [Int] = []
        for try await chunk in stream { got.append(Int(chunk[0]) << 8 | Int(chunk[1])) }
        #expect(got == Array(44..<300), "got \(got.count): \(got.prefix(3))…")
        #expect(try await closed(reader, within: 5))
    }

    @Test("A read error comes after the chunks read before it, once; then the sequence is over")
    func errorAfterChunks() async throws {
        let loop = try EventLoop.started()
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let device = open(pty.devicePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        #expect(device >= 0)
        let controller = SharedDescriptor(FileDescriptor(rawValue: dup(pty.controller.rawValue)))
        var raw = termios()
        cfmakeraw(&raw)
        _ = tcsetattr(device, TCSANOW, &raw)
        let stream = ReadableChunks.stream(controller, label: "test", on: loop)
        _ = write(device, "abc", 3)
        close(device) // a pty's controller reads EIO once its device side has no one left
        try await TestTime.pause(0.3)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == Array("abc".utf8))
        await #expect(throws: SystemCallError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(try await closed(controller, within: 5))
    }

    @Test("A consumer cancelled while it waits gets the end at once, and the descriptor is closed")
    func cancelledConsumer() async throws {
        let loop = try EventLoop.started()
        let (reader, writer) = try packets()
        defer { close(writer) }
        let started = Observed(false)
        let consumer = Task { () -> Int in
            var count = 0
            do {
                started.update { $0 = true }
                for try await _ in ReadableChunks.stream(reader, label: "test", on: loop) { count += 1 }
            } catch {
                return -1
            }
            return count
        }
        _ = await started.wait(timeout: TestTime.seconds(5)) { $0 }
        try await TestTime.pause(0.1)
        consumer.cancel()
        #expect(await consumer.value == 0)
        #expect(try await closed(reader, within: 5))
    }

    @Test("A stream its consumer lets go of closes its descriptor; what arrives after is not read")
    func droppedStream() async throws {
        let loop = try EventLoop.started()
        let (reader, writer) = try packets()
        defer { close(writer) }
        do {
            let stream = ReadableChunks.stream(reader, label: "test", on: loop)
            var iterator = stream.makeAsyncIterator()
            send(writer, [1])
            #expect(try await iterator.next() == [1])
        }
        #expect(try await closed(reader, within: 5))
        // The reading end is gone: the peer's next packet has nowhere to go (once a child process another test
        // was starting just then, which holds a copy of every descriptor until its exec, has let go of it too).
        #expect(try await sendFails(writer, within: 5))
    }

    /// Whether a packet sent to `writer`'s peer is refused (the peer is gone) within `seconds`.
    func sendFails(_ writer: Int32, within seconds: Double) async throws -> Bool {
        let deadline = SystemClock.monotonicSeconds() + TestTime.seconds(seconds)
        var byte: UInt8 = 2
        while Glibc.send(writer, &byte, 1, Int32(MSG_NOSIGNAL)) != -1 {
            guard SystemClock.monotonicSeconds() < deadline else { return false }
            try await TestTime.pause(0.01)
        }
        return true
    }
}
