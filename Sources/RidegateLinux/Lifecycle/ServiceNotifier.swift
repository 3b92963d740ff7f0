import Glibc

/// sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET (a path, or an abstract name when it
/// starts with '@'). Silent when not started by systemd.
public struct ServiceNotifier: Sendable {
    public let socketPath: String?
    /// Half of $WATCHDOG_USEC, in seconds: how often to tell systemd the daemon is alive (nil: no watchdog).
    public let watchdogInterval: Double?

    public init(environment: [String: String] = ServiceNotifier.processEnvironment()) {
        socketPath = environment["NOTIFY_SOCKET"]
        if let usec = environment["WATCHDOG_USEC"].flatMap(Double.init), usec > 0,
           environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true {
            watchdogInterval = usec / 1e6 / 2
        } else {
            watchdogInterval = nil
        }
    }

    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(key) { result[key] = String(cString: value) }
        }
        return result
    }

    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let path = socketPath, !path.isEmpty else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 } // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
            }
        }
        return sent == message.count
    }
}
