import Glibc

/// An owned-by-convention file descriptor with the few calls the adapters need, each a thin wrapper that
/// retries on EINTR and reports failures as `Errno`.
public struct FileDescriptor: Hashable, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// open(2).
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        switch retryingOnInterrupt({ Glibc.open(path, flags, mode) }) {
        case .success(let fd): return FileDescriptor(rawValue: fd)
        case .failure(let e): throw e
        }
    }

    /// read(2) into a buffer; 0 means end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        switch retryingOnInterrupt({ Glibc.read(rawValue, buffer.baseAddress, buffer.count) }) {
        case .success(let n): return n
        case .failure(let e): throw e
        }
    }

    /// One write(2); returns how many bytes the kernel took.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        switch retryingOnInterrupt({ Glibc.write(rawValue, bytes.baseAddress, bytes.count) }) {
        case .success(let n): return n
        case .failure(let e): throw e
        }
    }

    /// write(2) of every byte, looping over short writes; waits with poll(2) when non-blocking.
    public func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        let data = Array(bytes)
        var offset = 0
        while offset < data.count {
            let result = data.withUnsafeBytes { raw in
                retryingOnInterrupt { Glibc.write(rawValue, raw.baseAddress! + offset, raw.count - offset) }
            }
            switch result {
            case .success(let n): offset += n
            case .failure(let e) where e == .wouldBlock: try waitWritable()
            case .failure(let e): throw e
            }
        }
    }

    private func waitWritable() throws(Errno) {
        var pfd = pollfd(fd: rawValue, events: Int16(POLLOUT), revents: 0)
        if case .failure(let e) = retryingOnInterrupt({ poll(&pfd, 1, 1000) }) { throw e }
    }

    /// close(2). EINTR is not retried: on Linux the descriptor is gone either way.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// fcntl(2) O_NONBLOCK.
    public func setNonBlocking(_ on: Bool = true) throws(Errno) {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0 else { throw Errno.current }
        guard fcntl(rawValue, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) >= 0 else { throw Errno.current }
    }
}
