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
}
