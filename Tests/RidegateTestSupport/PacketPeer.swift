import Foundation
import RidegateLinux

/// The raw far end of a SOCK_SEQPACKET pair, for tests that play a misbehaving peer byte by byte.
/// Receiving is event-driven (read on `loop`), so a waiting test never blocks a thread of the cooperative pool
/// that the code under test needs.
public final class PacketPeer: @unchecked Sendable {
    public let descriptor: SharedDescriptor
    private let received = Observed<[[UInt8]]>([])
    private var consumed = 0
    private let reader: Task<Void, Never>

    public init(_ descriptor: FileDescriptor, loop: EventLoop) {
        let shared = SharedDescriptor(descriptor)
        self.descriptor = shared
        let stream = ReadableChunks.stream(shared, label: "peer", on: loop)
        let received = received
        // On the loop, not the cooperative pool: a packet is recorded when it arrives, however long the suite's
        // other tests keep the pool's threads busy (a waiting test then finds it, late, instead of timing out).
        reader = Task(executorPreference: loop) {
            do {
                for try await packet in stream { received.update { $0.append(packet) } }
            } catch {}
        }
    }

    /// The next packet, or nil after `timeout` seconds. The default only bounds a wait for a packet that
    /// should come: generous, since a loaded machine (a build beside the suite) can start a session seconds late.
    public func receive(timeout: TimeInterval = TestTime.seconds(15)) async -> [UInt8]? {
        let index = consumed
        let packets = await received.wait(timeout: timeout) { $0.count > index }
        guard packets.count > index else { return nil }
        consumed += 1
        return packets[index]
    }

    public func send(_ bytes: [UInt8]) {
        _ = descriptor.use { fd in bytes.withUnsafeBytes { Glibc.send(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
    }

    /// Hangs up: the reader's cancellation closes the descriptor.
    public func close() {
        _ = descriptor.use { shutdownDescriptor($0) }
        reader.cancel()
    }
}
