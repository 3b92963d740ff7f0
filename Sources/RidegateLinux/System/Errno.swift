import Glibc

/// An `errno` value. Open: an unknown code from an odd driver is data, not a crash.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let busy = Errno(rawValue: EBUSY)
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let notConnected = Errno(rawValue: ENOTCONN)
    public static let badDescriptor = Errno(rawValue: EBADF)

    /// strerror(3).
    public var description: String { String(cString: strerror(rawValue)) }
}

/// A system call that failed: which call, on what, and why.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var subject: String
    public var errno: Errno

    public init(_ call: String, _ subject: String, _ errno: Errno) {
        self.call = call
        self.subject = subject
        self.errno = errno
    }

    public var description: String { "\(call)(\(subject)): \(errno)" }
}

/// Runs a system call, retrying on EINTR and turning -1 into a typed error.
@inline(__always)
func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, Errno> {
    while true {
        let result = body()
        if result != -1 { return .success(result) }
        let e = Errno.current
        if e != .interrupted { return .failure(e) }
    }
}
