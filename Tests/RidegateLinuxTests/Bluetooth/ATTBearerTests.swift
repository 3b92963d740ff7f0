import Glibc
import RidegateLinux
import RidegateTestSupport
import Testing

/// The bearer's descriptor after the link has ended: its number goes back to the kernel and the next socket
/// opened gets it. A late disconnect or send from the old session must not reach that socket (in the daemon,
/// another sensor's link or the broker's).
@Suite struct ATTBearerTests {
    @Test("After the link ends, disconnect() and send() touch nothing, even when a new socket has the old number")
    func noUseAfterClose() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "old", loop: loop)
        let oldNumber = link.client.descriptor.use { $0.rawValue }
        let reader = Task(executorPreference: loop) { for try await _ in link.client.incoming {} }
        link.peripheral.close() // the peer goes away: the read source sees the end and closes the client's descriptor
        _ = await reader.result
        #expect(!link.client.descriptor.isOpen)

        // Open sockets until one gets the old number (other tests running in parallel may take it first).
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        var fds: [Int32] = [-1, -1]
        for _ in 0..<512 where !fds.contains(oldNumber ?? -2) {
            guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else { break }
            opened += fds
        }
        guard fds.contains(oldNumber ?? -2) else {
            print("ATTBearerTests: descriptor \(oldNumber ?? -1) was not reused here; nothing to show this run")
            return
        }
        link.client.disconnect()
        #expect(throws: Errno.notConnected) { try link.client.send([0x0A, 0x03, 0x00]) }
        // The new pair still works both ways.
        var byte: UInt8 = 7
        #expect(send(fds[0], &byte, 1, 0) == 1 && recv(fds[1], &byte, 1, 0) == 1)
        #expect(send(fds[1], &byte, 1, 0) == 1 && recv(fds[0], &byte, 1, 0) == 1)
    }

    @Test("A reader that falls behind loses no PDU: every one up to the bound, in order, then the link ends saying why")
    func readerFallsBehind() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "lagging", loop: loop)
        let count = ReadableChunks.capacity + 44
        // Sent while nobody reads `incoming`: the loop reads them off the socket into the stream regardless.
        let sender = Task.detached {
            for i in 0..<count {
                var pdu: [UInt8] = [0x1B, 0x03, 0x00, UInt8(i % 256), UInt8(i / 256)]
                _ = send(link.peripheral.rawValue, &pdu, pdu.count, Int32(MSG_NOSIGNAL))
            }
        }
        _ = await sender.result
        // Until the loop has taken the last of them off the socket (a peek finds nothing there).
        var waited = 0
        while waited < 500, link.client.descriptor.use({ fd -> Bool in
            var byte: UInt8 = 0
            return recv(fd.rawValue, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
        }) == true {
            try await TestTime.pause(0.01)
            waited += 1
        }
        // The peer hangs up: a stream that kept reading (dropping the oldest) ends here instead of waiting for ever.
        link.peripheral.close()
        var received: [Int] = []
        var ending: (any Error)?
        do {
            for try await pdu in link.client.incoming { received.append(Int(pdu[3]) + Int(pdu[4]) * 256) }
        } catch {
            ending = error
        }
        #expect(received == Array(0..<ReadableChunks.capacity), "\(received.count) PDUs, the last \(received.last ?? -1)")
        #expect(ending is ATTBearer.ReaderFellBehind, "\(String(describing: ending))")
    }

    @Test("A handoff that ends when full: what it kept, then the error, once; one that drops keeps the newest")
    func handoffWhenFull() async throws {
        struct Full: Error {}
        let ending = Handoff<Int>(capacity: 3, whenFull: .end(Full()))
        let dropping = Handoff<Int>(capacity: 3)
        for i in 0..<5 {
            ending.send(i)
            dropping.send(i)
        }
        ending.finish()
        dropping.finish()
        var kept: [Int] = []
        await #expect(throws: Full.self) { while let i = try await ending.next() { kept.append(i) } }
        #expect(kept == [0, 1, 2])
        #expect(try await ending.next() == nil)
        var newest: [Int] = []
        while let i = try await dropping.next() { newest.append(i) }
        #expect(newest == [2, 3, 4])
    }
}
