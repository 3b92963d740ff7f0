import CSQLite

/// A prepared statement of one of ridegate's SQLite files: values bound by position (from 1, as SQL's `?1`),
/// columns read by index (from 0), and every failure an `SQLiteFileError` naming the file and what was being
/// done. Whoever prepares one finalizes it (`finalize()`, usually in a `defer`); a batch keeps its statements
/// for many rows (`reset()`), which is why this is a plain value and not a class that finalizes itself.
struct SQLiteStatement {
    private let handle: OpaquePointer
    private let db: OpaquePointer?
    private let path: String

    init(_ db: OpaquePointer?, _ sql: String, path: String) throws(SQLiteFileError) {
        handle = try SQLiteCalls.prepare(db, sql, path: path)
        self.db = db
        self.path = path
    }

    func finalize() { sqlite3_finalize(handle) }

    /// Ready to run again (the bindings stay until bound anew).
    func reset() { sqlite3_reset(handle) }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: Bool) { sqlite3_bind_int(handle, index, value ? 1 : 0) }
    func bind(_ index: Int32, _ value: String) { SQLiteCalls.bindText(handle, index, value) }

    /// NULL for nil, and for a value that is not finite (a reading that was never measured).
    func bind(_ index: Int32, orNull value: Double?) {
        if let value, value.isFinite { bind(index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, orNull value: String?) {
        if let value { bind(index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds a value read from another statement as it is (a salvage copies rows column by column).
    func bind(_ index: Int32, copyOf value: OpaquePointer?) { sqlite3_bind_value(handle, index, value) }

    /// Runs a statement that returns no rows; `operation` says what failed.
    func run(_ operation: String) throws(SQLiteFileError) {
        guard sqlite3_step(handle) == SQLITE_DONE else { throw SQLiteCalls.error(db, operation, path: path) }
    }

    /// Runs it, and says only whether it worked (a salvage copies what it can and counts the rest).
    func runIfPossible() -> Bool { sqlite3_step(handle) == SQLITE_DONE }

    /// The next row: true for a row, false at the end, an error for anything else (SQLITE_CORRUPT is not "no
    /// more rows": a damaged page must never read as a shorter ride).
    func nextRow(_ operation: String) throws(SQLiteFileError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteCalls.error(db, operation, path: path)
        }
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String { SQLiteCalls.text(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}
