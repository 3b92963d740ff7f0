import Glibc
import RidegateLinux
import RidegateTestSupport
import Testing

/// The gateway's one thread: tasks preferring the loop run on it, and a read stream made there is served by it.
@Suite struct EventLoopTests {
    @Test("Tasks preferring the loop run on its one thread, also after a suspension")
    func oneThread() async throws {
        let loop = try EventLoop()
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
        let loop = try EventLoop()
        defer { loop.stop() }
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        let reader = SharedDescriptor(FileDescriptor(rawValue: fds[0]))
        let chunks = await withTaskExecutorPreference(loop) {
            await EventLoop.$current.withValue(loop) { () async -> [[UInt8]] in
                let stream = ReadableChunks.stream(reader, label: "test")
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
}
