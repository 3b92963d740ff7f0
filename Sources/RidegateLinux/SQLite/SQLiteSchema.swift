import CSQLite

/// A SQLite file's schema version (`PRAGMA user_version`) and the forward migrations to the current one, run
/// at open in one transaction: a package upgrade carries every spooled reading and every ride along. A file
/// from a newer ridegate is refused rather than misread.
enum SQLiteSchema {
    /// `steps[n]` takes a file from version n to n + 1 (`steps[0]` creates, or adopts, the first layout).
    /// `current` is the layout the steps end at, made in one go for a new file: the steps' ALTER TABLEs make
    /// SQLite re-read the whole schema, which on a new spool took 0.5 MB of heap for a moment, and the
    /// daemon keeps such pages for as long as it runs. (SchemaMigrationTests holds the two layouts equal.)
    static func migrate(_ db: OpaquePointer?, path: String, steps: [String], current: String) throws(SQLiteFileError) -> (from: Int, to: Int) {
        let version = Int(try SQLiteCalls.scalar(db, "PRAGMA user_version", path: path))
        guard version <= steps.count else {
            throw SQLiteFileError(path: path, operation: "open",
                             message: "written by a newer ridegate (schema \(version), this one knows up to \(steps.count)); upgrade ridegate or move the file aside")
        }
        guard version < steps.count else { return (version, version) }
        try SQLiteCalls.execute(db, "BEGIN IMMEDIATE", path: path)
        do throws(SQLiteFileError) {
            // Read again under the write lock: another connection (the uploader's, beside the ride log's) may have
            // migrated the file meanwhile.
            let version = Int(try SQLiteCalls.scalar(db, "PRAGMA user_version", path: path))
            guard version < steps.count else {
                try SQLiteCalls.execute(db, "COMMIT", path: path)
                return (version, version)
            }
            // Version 0 with tables in it is a file from before schema versions: it takes the steps.
            if version == 0, try SQLiteCalls.scalar(db, "SELECT count(*) FROM sqlite_master", path: path) == 0 {
                try SQLiteCalls.execute(db, current, path: path)
            } else {
                for step in steps[version...] { try SQLiteCalls.execute(db, step, path: path) }
            }
            try SQLiteCalls.execute(db, "PRAGMA user_version = \(steps.count); COMMIT", path: path)
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
        return (version, steps.count)
    }
}
