import Glibc

/// Paths a command needs from the system: a fresh private directory, and where the running binary is.
public enum ProcessPaths {
    /// mkdtemp(3): a new directory, 0700, named from `prefix` (e.g. "/tmp/ridegate-demo-").
    public static func temporaryDirectory(prefix: String) throws(SystemCallError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemCallError("mkdtemp", prefix, .current) }
        return String(cString: made)
    }

    /// The running binary's directory (readlink /proc/self/exe), nil when the kernel will not say.
    public static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }

    /// The file a path names with its links followed (realpath(3): /dev/ridegate-gps → /dev/ttyS1); the path itself
    /// when it cannot be resolved (absent, unreadable).
    public static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// gethostname(2), nil when it fails.
    public static func hostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// mkdir(2) then chmod(2) to `mode` (also for a directory made earlier); the error when it cannot be made.
    @discardableResult
    public static func privateDirectory(_ path: String, mode: mode_t) -> Errno? {
        if mkdir(path, mode) != 0, errno != EEXIST { return Errno.current }
        return chmod(path, mode) == 0 ? nil : Errno.current
    }

    /// Whether a process with this command name runs (from /proc/*/comm): doctor's "is gpsd running?".
    public static func processRunning(named name: String) -> Bool {
        guard let dir = opendir("/proc") else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let pid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !pid.isEmpty, pid.allSatisfy(\.isNumber) else { continue }
            if (try? TextFile.read("/proc/\(pid)/comm"))?.split(separator: "\n").first.map(String.init) == name { return true }
        }
        return false
    }

    /// A file root made for a daemon that runs as another user: given to the owner of the directory it is in.
    /// Nothing to do for anyone but root.
    public static func giveToDirectoryOwner(_ path: String) {
        guard geteuid() == 0 else { return }
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var st = stat()
        guard stat(directory.isEmpty ? "/" : directory, &st) == 0, st.st_uid != 0 else { return }
        _ = chown(path, st.st_uid, st.st_gid) // failing, the file stays root's and the daemon says it cannot read it
    }
}
