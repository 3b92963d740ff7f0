import Glibc
import RidegateCore

/// A connected ATT channel with message semantics: one PDU per write, one per read. On a Pi it is an
/// L2CAP LE socket on the ATT fixed channel (CID 4); in tests and the demo, one end of a
/// `socketpair(AF_UNIX, SOCK_SEQPACKET)`, which has the same semantics.
///
/// Reads only ever happen after epoll says the socket is readable (`ReadableChunks` on the event loop): Debian's 6.1
/// kernel can leave a blocking read(2) on an L2CAP socket asleep forever although the reply has arrived.
public final class ATTBearer: Sendable {
    /// Closed by the read source when the link ends; a send or disconnect after that does nothing (the
    /// number may already be another socket's).
    public let descriptor: SharedDescriptor
    public let label: String
    /// Incoming PDUs; finishes when the peer disconnects, throws on a socket error. Never drops one: a reader
    /// that falls `ReadableChunks.capacity` PDUs behind ends the link with `ReaderFellBehind` (a response
    /// dropped would leave its request waiting out the 30 s transaction timeout; a link ended is reconnected).
    public let incoming: ChunkStream
    /// The loop that reads it, and runs its client's timers.
    public let loop: EventLoop

    public init(descriptor: FileDescriptor, label: String, loop: EventLoop) {
        self.descriptor = SharedDescriptor(descriptor)
        self.label = label
        self.loop = loop
        incoming = ReadableChunks.stream(self.descriptor, label: label, on: loop, whenFull: .end(ReaderFellBehind()))
    }

    public struct ReaderFellBehind: Error, CustomStringConvertible {
        public var description: String {
            "\(ReadableChunks.capacity) PDUs arrived unread; the link is ended rather than lose one"
        }
    }

    /// send(2) of one PDU; ENOTCONN once the link is closed.
    public func send(_ pdu: [UInt8]) throws(Errno) {
        let result = descriptor.use { fd in
            pdu.withUnsafeBytes { raw in
                retryingOnInterrupt { Glibc.send(fd.rawValue, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            }
        }
        switch result {
        case nil: throw Errno.notConnected
        case .failure(let e)?: throw e
        case .success?: return
        }
    }

    /// shutdown(2): the peer sees the link go away; the read source then closes the descriptor. Safe to call
    /// more than once, and after the link has ended.
    public func disconnect() {
        _ = descriptor.use { shutdown($0.rawValue, Int32(SHUT_RDWR)) }
    }

    /// A connected pair: a bearer for the client and the raw descriptor for a simulated peripheral.
    public static func pair(label: String, loop: EventLoop) throws(SystemCallError) -> (client: ATTBearer, peripheral: FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SystemCallError("socketpair", "AF_UNIX SOCK_SEQPACKET", .current)
        }
        return (ATTBearer(descriptor: FileDescriptor(rawValue: fds[0]), label: label, loop: loop), FileDescriptor(rawValue: fds[1]))
    }
}

/// shutdown(2) both directions of a socket (a simulated peer dropping the link).
public func shutdownDescriptor(_ fd: FileDescriptor) -> Bool {
    shutdown(fd.rawValue, Int32(SHUT_RDWR)) == 0
}
