import Glibc

/// Whole-file reads for small files (config, password file, the demo ride).
public enum TextFile {
    /// - Parameter limit: stop once more than this many bytes were read, so a caller can refuse a file that is
    ///   too large — or endless, like /dev/zero — without reading it all.
    public static func readBytes(_ path: String, limit: Int = .max) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        try readChunks(path, size: 65_536) { chunk in
            bytes.append(contentsOf: chunk)
            return bytes.count <= limit
        }
        return bytes
    }

    /// Hands a file to `body` a piece at a time until its end, or until `body` returns false: for a file not
    /// worth holding whole (the demo's ride).
    public static func readChunks(_ path: String, size: Int = 4096, _ body: (ArraySlice<UInt8>) -> Bool) throws(SystemCallError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
        } catch {
            throw SystemCallError("open", path, error)
        }
        defer { fd.close() }
        var chunk = [UInt8](repeating: 0, count: max(1, size))
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) -> Int in try fd.read(into: buffer) }
            }
            switch result {
            case .success(0): return
            case .success(let n): guard body(chunk[0..<n]) else { return }
            case .failure(let error): throw SystemCallError("read", path, error)
            }
        }
    }

    public static func read(_ path: String) throws(SystemCallError) -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// Writes a small file crash-safely and without following anything planted beside it (`AtomicFile`).
    /// Written 0600 by default: what ridegate keeps (the last position, the strap it chose) is the rider's own.
    public static func replace(_ path: String, with text: String, mode: mode_t = 0o600) throws(FileWriteError) {
        try replace(path, withBytes: Array(text.utf8), mode: mode)
    }

    /// The same for bytes. `modeRequired: false` for a file on a FAT USB stick, which cannot keep Unix
    /// permissions (fchmod fails there, and the file is fine).
    public static func replace(_ path: String, withBytes bytes: [UInt8], mode: mode_t = 0o600, modeRequired: Bool = true) throws(FileWriteError) {
        let file = try AtomicFile(replacing: path, mode: mode, modeRequired: modeRequired)
        try file.write(bytes)
        try file.commit()
    }

    /// Why this process cannot read `path` (access(2) R_OK), or nil when it can.
    public static func unreadable(_ path: String) -> Errno? {
        access(path, R_OK) == 0 ? nil : Errno.current
    }

    /// stat(2) permission bits, for refusing a world-readable password file.
    public static func mode(_ path: String) throws(SystemCallError) -> mode_t {
        var st = stat()
        guard stat(path, &st) == 0 else { throw SystemCallError("stat", path, .current) }
        return st.st_mode
    }
}
