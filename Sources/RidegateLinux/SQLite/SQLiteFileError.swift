import CSQLite

/// What went wrong with one of ridegate's SQLite files (the spool or the ride log): one error type for both.
public struct SQLiteFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var message: String
    /// SQLite's result code (primary code in the low byte), when SQLite gave one.
    public var code: Int32

    public init(path: String, operation: String, message: String, code: Int32 = 1) {
        self.path = path
        self.operation = operation
        self.message = message
        self.code = code
    }

    /// The file names itself (spool.sqlite, rides.sqlite): one error type for both SQLite files.
    public var description: String { "\(path): \(operation): \(message)" }

    /// The file is damaged (not a database, or its pages are corrupt): keep it aside and start a new one.
    public var isDamage: Bool { [SQLITE_CORRUPT, SQLITE_NOTADB].contains(code & 0xFF) }
    /// The filesystem is full (or over quota): wait for space.
    public var isFull: Bool { code & 0xFF == SQLITE_FULL }
}
