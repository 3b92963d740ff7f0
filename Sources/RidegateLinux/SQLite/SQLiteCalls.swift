import CSQLite
import Glibc
import CSQLiteShim

/// The SQLite C calls the spool and the ride log share, with their failures as `SQLiteFileError` (the message
/// SQLite gave, and its result code so a damaged file or a full disk can be told apart).
enum SQLiteCalls {
    /// Each connection's page cache, in KiB. SQLite's default (2000 KiB) fills as a file grows past it: a
    /// spool that has waited out a long broker outage, or a long ride's log, would each add 2 MB to the
    /// daemon. Appends and acknowledgements touch a B-tree's edges only, so 256 KiB costs no time (measured
    /// in docs/performance.md).
    static let pageCacheKiB = 256

    /// Opens a connection, after the process's SQLite settings. Every connection here is used by one thread
    /// at a time: no per-connection mutex.
    static func open(_ path: String, flags: Int32) throws(SQLiteFileError) -> OpaquePointer {
        _ = processSettings
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let code = handle.map { sqlite3_errcode($0) } ?? SQLITE_NOMEM
            sqlite3_close(handle)
            throw SQLiteFileError(path: path, operation: "open", message: message, code: code)
        }
        return handle
    }

    /// Opens a file only to read it. In a directory this process cannot write (a read-only mount, a copy on a
    /// CD), SQLite could not make the WAL's shared-memory file a reader needs: the file is then opened as
    /// immutable, which it is there (nothing can be writing it).
    /// Writes still in the WAL (left by a power cut) are not in the file, and an immutable read would not see them:
    /// refused, with what to do, rather than a shorter ride or "no such table".
    static func openReadOnly(_ path: String) throws(SQLiteFileError) -> OpaquePointer {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard access(directory.isEmpty ? "/" : directory, W_OK) != 0 else { return try open(path, flags: SQLITE_OPEN_READONLY) }
        var wal = stat()
        if stat(path + "-wal", &wal) == 0, wal.st_size > 0 {
            throw SQLiteFileError(path: path, operation: "open", message: "its last writes are still in \(path)-wal, which this read-only folder "
                             + "cannot merge into it: copy the folder somewhere writable (cp -a) and read the copy", code: SQLITE_READONLY)
        }
        // A URI: the three characters that would end the path are escaped.
        let escaped = path.utf8.flatMap { byte -> [UInt8] in
            [UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(byte) ? Array("%\(String(byte, radix: 16))".utf8) : [byte]
        }
        return try open("file:\(String(decoding: escaped, as: UTF8.self))?immutable=1", flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
    }

    /// Made once, before the first connection (SQLite takes them only before it initialises): no memory
    /// statistics, which took a global mutex around every SQLite allocation and free, 53 a 10 Hz epoch and
    /// 3 % of the daemon's instructions (nothing here reads them; `sqlite3_db_status`, per connection, stays);
    /// and no page cache allocated before it is used (sqlite_shim.h says what that held).
    private static let processSettings = rg_sqlite_configure_process()

    /// The pragmas every writable connection starts with. 1 KiB pages for a new file (an existing file keeps
    /// its page size): each transaction rewrites a handful of pages in the WAL, and at 1 KiB instead of
    /// SQLite's 4 KiB the SD card sees a quarter of the bytes.
    ///
    /// `exclusive`: for a file only this connection ever opens (the spool). The file lock is taken once and
    /// held, and WAL's index lives in memory instead of a shared `-shm` file: each transaction then makes no
    /// `fcntl` lock calls (six per reading otherwise: 19 system calls per 10 Hz epoch, now 13). Another
    /// process opening the file is told it is locked.
    ///
    /// `synced`: every commit reaches the disk before it returns (`synchronous=FULL`: the WAL is fsynced), for
    /// the ride log's 5 s batches; otherwise a commit is durable against a crash but a power cut can roll it back
    /// (`NORMAL`), and the spool syncs on its own cadence (`SpoolDurability`). docs/performance.md has the costs.
    static func configureWritable(_ db: OpaquePointer?, path: String, exclusive: Bool = false, synced: Bool = false) throws(SQLiteFileError) {
        // Before journal_mode: the locking mode in force when WAL is first entered decides whether -shm is used.
        if exclusive { try execute(db, "PRAGMA locking_mode = EXCLUSIVE;", path: path) }
        try execute(db, "PRAGMA page_size = 1024; PRAGMA journal_mode=WAL; PRAGMA synchronous=\(synced ? "FULL" : "NORMAL"); "
                    + "PRAGMA cache_size = -\(pageCacheKiB);", path: path)
    }

    /// Makes the file, if it is not there, readable by its owner alone (0600 whatever the umask) before SQLite
    /// opens it: its -wal and -shm files take the database's mode, and both files hold the rider's GPS track.
    /// ":memory:" and friends have no file.
    static func makePrivate(_ path: String) {
        guard path.hasPrefix("/") else { return }
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return } // opening it then says why
        _ = fchmod(fd, 0o600)
        Glibc.close(fd)
    }

    /// `PRAGMA quick_check`: the whole file's pages and rows read once; anything but "ok" is damage
    /// (SQLITE_CORRUPT), found now rather than as rows silently missing later.
    static func quickCheck(_ db: OpaquePointer?, path: String) throws(SQLiteFileError) {
        let statement = try prepare(db, "PRAGMA quick_check(3)", path: path)
        defer { sqlite3_finalize(statement) }
        var problems: [String] = []
        var result = sqlite3_step(statement)
        while result == SQLITE_ROW {
            problems.append(text(statement, 0))
            result = sqlite3_step(statement)
        }
        // A step that fails says why (busy is not damage; not a database is).
        guard result == SQLITE_DONE else { throw error(db, "check the file's integrity", path: path) }
        guard problems == ["ok"] else {
            throw SQLiteFileError(path: path, operation: "check the file's integrity",
                             message: problems.isEmpty ? "no answer" : problems.joined(separator: "; "), code: SQLITE_CORRUPT)
        }
    }

    /// What the connection's page cache holds now, in bytes.
    static func pageCacheBytes(_ db: OpaquePointer?) -> Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        guard sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0) == SQLITE_OK else { return 0 }
        return Int(current)
    }

    static func execute(_ db: OpaquePointer?, _ sql: String, path: String) throws(SQLiteFileError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteFileError(path: path, operation: "execute", message: text, code: db.map { sqlite3_errcode($0) } ?? SQLITE_MISUSE)
        }
    }

    static func prepare(_ db: OpaquePointer?, _ sql: String, path: String) throws(SQLiteFileError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error(db, "prepare", path: path) }
        return statement
    }

    /// The first column of the first row (0 when there is none).
    static func scalar(_ db: OpaquePointer?, _ sql: String, path: String) throws(SQLiteFileError) -> Int64 {
        let statement = try prepare(db, sql, path: path)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return 0 }
        return sqlite3_column_int64(statement, 0)
    }

    static func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        // SQLITE_TRANSIENT: SQLite copies the bytes before the Swift string goes away.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, index, text, -1, transient)
    }

    static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let text = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: text)
    }

    static func error(_ db: OpaquePointer?, _ operation: String, path: String) -> SQLiteFileError {
        SQLiteFileError(path: path, operation: operation, message: db.map { String(cString: sqlite3_errmsg($0)) } ?? "closed",
                   code: db.map { sqlite3_errcode($0) } ?? SQLITE_MISUSE)
    }
}
