import Glibc

/// An outgoing TCP connection (gpsd's socket), made off the caller's thread: name resolution and connect(2)
/// block, and the gateway's event loop must not.
public enum TCPConnection {
    /// A connected socket to `host:port`, trying each address the name resolves to; `timeout` bounds each
    /// connect (SO_SNDTIMEO).
    public static func connect(host: String, port: Int, timeout: Double = 5) async throws(SystemCallError) -> FileDescriptor {
        let result = try await BlockingThread.run("\(host):\(port)") { blockingConnect(host: host, port: port, timeout: timeout) }
        return FileDescriptor(rawValue: try result.get())
    }

    private static func blockingConnect(host: String, port: Int, timeout: Double) -> Result<Int32, SystemCallError> {
        let target = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            return .failure(SystemCallError("getaddrinfo", target, Errno(rawValue: resolved == EAI_SYSTEM ? errno : EHOSTUNREACH)))
        }
        defer { freeaddrinfo(list) }
        var last = Errno(rawValue: ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            entry = candidate.pointee.ai_next
            let fd = socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), candidate.pointee.ai_protocol)
            guard fd >= 0 else {
                last = .current
                continue
            }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 { return .success(fd) }
            last = .current
            Glibc.close(fd)
        }
        return .failure(SystemCallError("connect", target, last))
    }
}
