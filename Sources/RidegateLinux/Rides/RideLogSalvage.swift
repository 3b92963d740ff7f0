import CSQLite
import Glibc
import RidegateCore

/// What can still be read from a damaged ride log, copied into a new one: every row of its rides, points, laps
/// and sensors that SQLite can reach, in rowid order, hopping over unreadable pages (`DamagedTableScan`). A ride
/// whose row was lost but whose points were not comes back from its points; a ride that lost points has its
/// totals worked out again from what remains.
public struct RideLogSalvage: Sendable, Equatable {
    /// Rides and points saved into the new file.
    public var rides = 0
    public var points = 0
    /// Points the damaged file's rides counted that could not be read (rides whose own row was lost are not in
    /// this count: nothing says how many points they had).
    public var unreadablePoints = 0
    /// Rides that lost their row (rebuilt from their points) or lost points.
    public var damagedRides = 0

    static let tables = ["rides", "points", "laps", "devices", "uploads"]
    /// Restarts after an unreadable page, per table: enough to pass every bad page of a badly damaged file without
    /// searching it forever.
    static let maximumRestarts = 4096

    /// Copies what `damaged` (opened read-only) holds into `store` (a new, empty ride log), in one transaction.
    static func copy(from damaged: String, into store: SQLiteRideStore) throws(SQLiteFileError) -> RideLogSalvage {
        var salvage = RideLogSalvage()
        let source: OpaquePointer
        do {
            source = try SQLiteCalls.open(damaged, flags: SQLITE_OPEN_READONLY)
        } catch {
            return salvage // a file SQLite cannot open at all has nothing to give
        }
        defer { sqlite3_close(source) }
        try store.execute("BEGIN IMMEDIATE")
        do throws(SQLiteFileError) {
            var counted: [Int64: Int] = [:]
            for table in tables {
                let copied = try copyRows(table, from: source, into: store)
                if table == "points" { salvage.points = copied }
            }
            // What each ride's row said it had, against what was saved.
            let statement = try store.prepare("SELECT id, points FROM rides")
            defer { statement.finalize() }
            while try statement.nextRow("count the saved rides' points") { counted[statement.int64(0)] = Int(statement.int64(1)) }
            salvage.damagedRides = try store.rebuildRides()
            for (ride, count) in counted {
                let saved = Int(try store.scalar("SELECT count(*) FROM points WHERE ride = \(ride)"))
                salvage.unreadablePoints += max(0, count - saved)
            }
            salvage.rides = Int(try store.scalar("SELECT count(*) FROM rides"))
            try store.execute("COMMIT")
        } catch {
            _ = sqlite3_exec(store.db, "ROLLBACK", nil, nil, nil)
            throw error
        }
        return salvage
    }

    /// Copies the rows of `table` that can be read, with the columns both files have. Returns how many.
    private static func copyRows(_ table: String, from source: OpaquePointer, into store: SQLiteRideStore) throws(SQLiteFileError) -> Int {
        let wanted = Set(columns(table, source))
        let names = columns(table, store.db).filter { wanted.contains($0) }
        guard !names.isEmpty else { return 0 }
        let list = names.joined(separator: ", ")
        let insert = try store.prepare("INSERT OR IGNORE INTO \(table) (\(list)) VALUES (\(names.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))")
        defer { insert.finalize() }
        var copied = 0
        DamagedTableScan.scan(source, "SELECT rowid, \(list) FROM \(table) WHERE rowid > ?1 ORDER BY rowid", after: Int64.min,
                              restarts: maximumRestarts) { select, _ in
            insert.reset()
            for index in names.indices { insert.bind(Int32(index + 1), copyOf: sqlite3_column_value(select, Int32(index + 1))) }
            if insert.runIfPossible() { copied += 1 }
            return true
        }
        return copied
    }

    /// The table's columns (none when its schema cannot be read).
    private static func columns(_ table: String, _ db: OpaquePointer?) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA table_info(\(table))", -1, &statement, nil) == SQLITE_OK, let statement else { return [] }
        defer { sqlite3_finalize(statement) }
        var names: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { names.append(SQLiteCalls.text(statement, 1)) }
        return names
    }
}

extension SQLiteRideStore {
    /// After a salvage: rides whose row was lost come back from their points (closed, named from their first
    /// position), and rides that lost points count what remains and have their totals worked out again. Returns
    /// how many rides were touched.
    func rebuildRides() throws(SQLiteFileError) -> Int {
        let lost = try scalar("SELECT count(DISTINCT ride) FROM points WHERE ride NOT IN (SELECT id FROM rides)")
        try execute("""
            INSERT INTO rides (id, start, end, moved, points, distance, closed)
                SELECT ride, min(time), max(time), max(time), count(*), max(distance), 1 FROM points
                WHERE ride NOT IN (SELECT id FROM rides) GROUP BY ride;
            """)
        let shortened = try scalar("SELECT count(*) FROM rides WHERE points <> (SELECT count(*) FROM points WHERE points.ride = rides.id)")
        try execute("""
            UPDATE rides SET points = (SELECT count(*) FROM points WHERE points.ride = rides.id), totals = NULL
                WHERE points <> (SELECT count(*) FROM points WHERE points.ride = rides.id);
            DELETE FROM rides WHERE points = 0;
            """)
        try nameUnnamedRides()
        return Int(lost + shortened)
    }
}
