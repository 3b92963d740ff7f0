import CSQLite

/// The rows SQLite can still reach in a damaged table, in key order: after an unreadable page the search starts
/// again further on (1, 2, 4… keys past the last one read), so one bad leaf does not cost every row after it.
/// The spool's salvage and the ride log's both read through it.
enum DamagedTableScan {
    /// Runs `select` — `… WHERE <key> > ?1 ORDER BY <key>`, the key its first column — and calls `row` for each row
    /// past the last one read; `row` returns false to end the scan (a key no file of ours could hold). Gives up
    /// after `restarts` unreadable stretches, or once the search passes `highest` (when known).
    static func scan(_ db: OpaquePointer, _ select: String, after start: Int64, restarts: Int, highest: Int64? = nil,
                     row: (OpaquePointer, Int64) -> Bool) {
        var after = start
        var skip: Int64 = 0
        for _ in 0..<restarts {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, select, -1, &statement, nil) == SQLITE_OK, let statement else { return }
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, after.addingReportingOverflow(skip).partialValue)
            var result = sqlite3_step(statement)
            var progressed = false
            while result == SQLITE_ROW {
                let key = sqlite3_column_int64(statement, 0)
                if key > after {
                    guard row(statement, key) else { return }
                    after = key
                    progressed = true
                }
                result = sqlite3_step(statement)
            }
            if result == SQLITE_DONE || after == Int64.max { return }
            let (doubled, overflow) = skip.multipliedReportingOverflow(by: 2)
            skip = progressed ? 1 : (overflow ? Int64.max : max(1, doubled))
            let (next, past) = after.addingReportingOverflow(skip)
            if past || highest.map({ $0 > 0 && next > $0 }) == true { return }
        }
    }
}
