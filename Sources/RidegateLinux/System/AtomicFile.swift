import Glibc

/// Why a file was not written where it was asked.
public enum FileWriteError: Error, Sendable, CustomStringConvertible {
    /// The target exists and is not a file to replace: a directory, a device, a FIFO, a socket.
    case notAFile(path: String, what: String)
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .notAFile(let path, let what): "\(path) is \(what), not a file: name a file to write (a new one, or one to replace)"
        case .system(let error): error.description
        }
    }
}

/// A file written beside its target and renamed over it once whole, so a power cut leaves the old content or
/// the new, never half; and written so that nothing planted beside it can redirect it:
/// - the target must be absent or a regular file (a symbolic link is judged by what it points to; the rename
///   then replaces the link, never what it points to): a directory, device, FIFO or socket is refused;
/// - the temporary file is always a new one (`O_CREAT | O_EXCL | O_NOFOLLOW`), in the target's directory, under
///   a name of this process's own, 0600 until the rename: a symbolic link or a file someone left under that
///   name makes the open fail and another name is tried, never followed or overwritten;
/// - it is written as it is produced (`write`), so a long ride's file is never whole in memory.
/// Not committed (an error, or let go), the temporary file is removed; one a power cut left behind is removed by
/// `removeLeftovers` (the ride log's sink sweeps the export directory at each start).
public final class AtomicFile {
    public let path: String
    private let temporary: String
    private let mode: mode_t
    private let modeRequired: Bool
    private var descriptor: FileDescriptor?
    private var buffer: [UInt8] = []
    private static let bufferSize = 65_536

    /// - Parameter modeRequired: false for a file on a FAT USB stick, which cannot keep Unix permissions
    ///   (fchmod fails there, and the file is fine).
    public init(replacing path: String, mode: mode_t = 0o600, modeRequired: Bool = true) throws(FileWriteError) {
        if let what = Self.targetProblem(path) { throw .notAFile(path: path, what: what) }
        self.path = path
        self.mode = mode
        self.modeRequired = modeRequired
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var attempt = 0
        while true {
            attempt += 1
            let candidate = directory + "." + name + "." + String(getpid()) + "-" + String(attempt) + ".tmp"
            do {
                descriptor = try FileDescriptor.open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
                temporary = candidate
                break
            } catch where error == Errno(rawValue: EEXIST) && attempt < 100 {
                continue
            } catch {
                throw .system(SystemCallError("open", candidate, error))
            }
        }
    }

    deinit {
        guard let descriptor else { return }
        descriptor.close()
        unlink(temporary)
    }

    /// Why `path` cannot be replaced by a file, or nil when it is absent or a regular file.
    public static func targetProblem(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil } // absent (or unreachable: the open says why)
        var kind = status.st_mode & S_IFMT
        if kind == S_IFLNK {
            guard stat(path, &status) == 0 else { return nil } // a dangling link: the rename replaces the link
            kind = status.st_mode & S_IFMT
        }
        return Self.kind(kind)
    }

    /// What a file of this mode is, in words, when it is not a regular file (nil when it is).
    public static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// Appends bytes (buffered: the disk sees 64 KB writes).
    public func write(_ bytes: some Collection<UInt8>) throws(FileWriteError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    public func write(_ text: String) throws(FileWriteError) {
        try write(text.utf8)
    }

    private func flush() throws(FileWriteError) {
        guard let descriptor, !buffer.isEmpty else { return }
        do {
            try descriptor.writeAll(buffer)
        } catch {
            throw .system(SystemCallError("write", temporary, error))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The file's mode, its bytes on the disk (fsync), then the rename over the target.
    public func commit() throws(FileWriteError) {
        try flush()
        guard let descriptor else { return }
        guard fchmod(descriptor.rawValue, mode) == 0 || !modeRequired else {
            throw .system(SystemCallError("fchmod", temporary, .current))
        }
        guard fsync(descriptor.rawValue) == 0 else { throw .system(SystemCallError("fsync", temporary, .current)) }
        // Checked again just before the rename: a directory made at the target meanwhile is not replaced.
        if let what = Self.targetProblem(path) { throw .notAFile(path: path, what: what) }
        guard rename(temporary, path) == 0 else { throw .system(SystemCallError("rename", path, .current)) }
        descriptor.close()
        self.descriptor = nil
        try syncDirectory()
    }

    /// The rename on the disk too: the directory's entry is only durable once the directory is synced (a power
    /// cut could otherwise leave the ride log saying "exported" and no file). A file system that cannot sync a
    /// directory (EINVAL) has nothing more to give.
    private func syncDirectory() throws(FileWriteError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let handle = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else { throw .system(SystemCallError("open", directory, .current)) }
        defer { close(handle) }
        guard fsync(handle) == 0 || errno == EINVAL else { throw .system(SystemCallError("fsync", directory, .current)) }
    }

    /// Removes the temporary files (`.<name>.<pid>-<n>.tmp`) that processes no longer running left in
    /// `directory`, a power cut's mid-write; returns their names. One of a running process is its write in
    /// progress, and stays.
    public static func removeLeftovers(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var removed: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = writer(ofTemporary: name), kill(pid, 0) != 0, errno == ESRCH else { continue }
            if unlink(directory + "/" + name) == 0 { removed.append(name) }
        }
        return removed
    }

    /// The process that named a temporary file `.<name>.<pid>-<n>.tmp`; nil for any other name.
    static func writer(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropLast(4).split(separator: ".").last?.split(separator: "-", omittingEmptySubsequences: false)
        guard let parts, parts.count == 2, let attempt = Int(parts[1]), attempt >= 1,
              let pid = pid_t(parts[0]), pid > 0 else { return nil }
        return pid
    }
}
