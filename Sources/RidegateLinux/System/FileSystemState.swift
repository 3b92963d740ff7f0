import Glibc

/// What the kernel says of the file system a path lives on.
public enum FileSystemState {
    /// Whether the file system holding `path` is mounted read-only (statvfs(3)'s ST_RDONLY): a state partition
    /// fsck left for the rider to repair, or one ext4 remounted read-only on an error (`errors=remount-ro`).
    public static func isReadOnly(_ path: String) throws(SystemCallError) -> Bool {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { throw SystemCallError("statvfs", path, .current) }
        return status.f_flag & UInt(ST_RDONLY) != 0
    }
}
