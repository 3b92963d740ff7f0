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
        let link = try ATTBearer.pair(label: "old")
        let oldNumber = link.client.descriptor.use { $0.rawValue }
        let reader = Task { for try await _ in link.client.incoming {} }
        link.peripheral.close() // the peer goes away: the read source sees the end and closes the client's descriptor
        _ = await reader.result
        #expect(!link.client.descriptor.isOpen)

        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(fds.contains(oldNumber ?? -2), "the kernel did not reuse \(oldNumber ?? -1) (\(fds)): the test shows nothing")
        link.client.disconnect()
        #expect(throws: Errno.notConnected) { try link.client.send([0x0A, 0x03, 0x00]) }
        // The new pair still works both ways.
        var byte: UInt8 = 7
        #expect(send(fds[0], &byte, 1, 0) == 1 && recv(fds[1], &byte, 1, 0) == 1)
        #expect(send(fds[1], &byte, 1, 0) == 1 && recv(fds[0], &byte, 1, 0) == 1)
    }
}
