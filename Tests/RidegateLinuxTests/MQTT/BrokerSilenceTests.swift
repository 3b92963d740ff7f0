import Foundation
import Glibc
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// Something listens on the broker's port but never speaks MQTT: the client says so (it once said
/// "Unknown error."), and keeps trying with backoff.
@Suite struct BrokerSilenceTests {
    /// A TCP port that takes connections (the kernel completes them into the backlog) and never answers.
    final class SilentListener: @unchecked Sendable {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 16) == 0 else { throw ChildProcessError(message: "listen: \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    @Test("A listener that never answers CONNECT: the attempt fails with that said, not \"Unknown error.\"")
    func silentBroker() async throws {
        let listener = try SilentListener()
        let settings = MQTTSettings(host: "127.0.0.1", port: listener.port, clientID: "silent", keepaliveSeconds: 60,
                                    reconnectMinSeconds: 1, reconnectMaxSeconds: 1, statusTopic: "rg/t/status")
        let client = try MQTTPublisher(settings: settings, topicPrefix: "rg/t", loop: try EventLoop.started(), logger: CapturingLogHandler().logger())
        try client.start()
        let connected = await client.waitUntilConnected(timeout: TestTime.seconds(30), untilFirstFailure: true)
        #expect(!connected)
        let reason = client.lastFailure ?? "-"
        #expect(reason.contains("did not answer MQTT's CONNECT") && reason.contains("127.0.0.1:\(listener.port)"), "\(reason)")
        await client.shutdown()
    }
}
