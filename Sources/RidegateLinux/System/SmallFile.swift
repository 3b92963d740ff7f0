import Glibc

/// A small file read whole (the config, the MQTT password): a regular file of at most `limit` bytes, refused at
/// once otherwise, with the reason. Opened without blocking: a FIFO named by mistake would otherwise wait for a
/// writer forever, and a device such as /dev/zero never ends.
public enum SmallFile {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case system(SystemCallError)
        case notAFile(path: String, kind: String)
        case tooLarge(path: String, bytes: Int64, limit: Int)

        public var description: String {
            switch self {
            case .system(let error): "\(error)"
            case .notAFile(let path, let kind): "\(path) is \(kind), not a file"
            case .tooLarge(let path, let bytes, let limit): "\(path) is \(bytes) bytes, larger than \(Self.size(limit))"
            }
        }

        static func size(_ bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1024 ? "\(bytes >> 10) KiB" : "\(bytes) bytes" }
    }

    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        } catch {
            throw .system(SystemCallError("open", path, error))
        }
        defer { fd.close() }
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0 else { throw .system(SystemCallError("fstat", path, .current)) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path: path, kind: AtomicFile.kind(st.st_mode) ?? "not a regular file") }
        guard st.st_size <= Int64(limit) else { throw .tooLarge(path: path, bytes: Int64(st.st_size), limit: limit) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= limit {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) -> Int in try fd.read(into: buffer) }
            }
            switch result {
            case .success(0): return bytes
            case .success(let n): bytes += chunk[0..<n]
            case .failure(let error): throw .system(SystemCallError("read", path, error))
            }
        }
        // It grew while being read.
        throw .tooLarge(path: path, bytes: Int64(bytes.count), limit: limit)
    }
}
