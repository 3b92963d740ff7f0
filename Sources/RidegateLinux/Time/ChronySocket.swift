import Glibc
import RidegateCore

/// chrony's SOCK reference clock: one datagram of `struct sock_sample` per sample, to the Unix socket chronyd
/// makes for a `refclock SOCK <path>` line (chrony's refclock_sock.c). Sent to the path each time, never
/// connected, so a restarted chronyd (a new socket at the same path) gets the next sample.
public final class ChronySocket: Sendable {
    public let path: String
    private let fd: Int32

    /// A datagram socket for sending to `path` (nothing is opened at `path` yet).
    public init(path: String) throws(SystemCallError) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError("socket", path, .current) }
    }

    deinit { Glibc.close(fd) }

    /// sendto(2) of one sample. ENOENT / ECONNREFUSED: no chronyd listens there (not running, or no such
    /// refclock line); EACCES: the socket is not writable by this user; EAGAIN: chronyd is behind, the
    /// sample is dropped (the next one comes within a second).
    public func send(_ sample: ClockSample) throws(Errno) {
        let datagram = Self.encode(sample)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(path.utf8)
        guard name.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Errno(rawValue: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let sent = datagram.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        guard sent == datagram.count else { throw sent < 0 ? Errno.current : Errno(rawValue: EMSGSIZE) }
    }

    /// `struct sock_sample` as chronyd reads it on a 64-bit Linux (the Pi's arm64): a `struct timeval` (the
    /// system time of the sample), the offset as a double, `pulse` 0 (not a PPS edge), `leap` 0, padding, and
    /// the magic 0x534f434b ("SOCK"), in the machine's byte order. 40 bytes.
    static func encode(_ sample: ClockSample) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        func append<T>(_ value: T) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }
        let seconds = sample.systemTime.secondsSince1970.rounded(.down)
        append(Int64(seconds))
        append(Int64(min(999_999, max(0, ((sample.systemTime.secondsSince1970 - seconds) * 1e6).rounded()))))
        append(sample.offset)
        append(Int32(0)) // pulse
        append(Int32(0)) // leap: none announced (NMEA does not carry it)
        append(Int32(0)) // padding
        append(Int32(0x534f_434b))
        return bytes
    }

    /// What to check when `send` failed with `error`.
    public static func advice(for error: Errno) -> String {
        switch error.rawValue {
        case ENOENT, ECONNREFUSED:
            "is chronyd running, with `refclock SOCK <this path> refid GPS` in its chrony.conf? (docs/hardware.md)"
        case EACCES, EPERM:
            "the socket is not writable by the ridegate user: chrony before 4.4 makes it mode 0755; see docs/hardware.md"
        case EAGAIN:
            "chronyd is not reading its socket"
        default:
            "see docs/hardware.md, section chrony"
        }
    }
}
