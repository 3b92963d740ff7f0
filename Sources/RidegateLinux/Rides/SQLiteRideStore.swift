import CSQLite
import Glibc
import RidegateCore

/// The ride log: every point of every ride, where its laps ended and the sensors that rode along, in its own
/// SQLite file (`rides.sqlite` in the state directory, WAL, separate from the spool). Entries arrive in batches
/// (one transaction each: the SD card sees a write every few seconds, not one per fix, and no fsync per point);
/// a power cut loses at most the batch in memory.
///
/// Rides split on time (GPS time, never the Pi's clock): a point more than `newRideAfter` seconds after the
/// ride last moved ends it (standing, at once: the bike parked at home is exported and uploaded there) or
/// starts a new ride (moving), so a restart or a café stop continues the ride and the next morning does not;
/// the next movement after a ride ended on purpose (`RideLogEntry.end`) starts a new one too. A bike standing
/// still longer than that records nothing until it moves again; the standing tail of a ride ended that way is
/// dropped, and a "ride" that never moved is removed. Shorter stops stay in the ride as they were (auto-pause
/// is the points' moving flag, not deleted points). A ride is closed once it ended either way: only then are
/// its totals stored, and only then can it count as exported.
public final class SQLiteRideStore: @unchecked Sendable {
    public struct Ride: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var start: Timestamp
        public var end: Timestamp
        public var points: Int
        public var distanceMeters: Double
        public var movingSeconds: Double
        public var exported: [String]
        public var closed: Bool
        /// Totals from its points (stored once the ride is closed, worked out while it is open).
        public var statistics: RideStatistics?
        public var laps: Int

        public var elapsedSeconds: Double { end - start }
    }

    public static var schemaVersion: Int { RideLogSchema.steps.count }

    public let path: String
    /// Opened only to read (a read-only state directory): nothing can be marked or removed.
    public let readOnly: Bool
    public let newRideAfter: Double
    /// The zones and the rider the totals are counted for.
    public let context: RideStatistics.Context
    var db: OpaquePointer?
    /// This run's distance offset into its ride: the gateway's distance restarts at 0 with each run (and is
    /// measured from the run's start), the ride's carries on.
    var runOffset: (ride: Int64, offset: Double)?
    /// Rides this store closed (a new one began after them, or they were ended), for the sink to export.
    var finished: [Int64] = []
    /// The sensors seen in this run, written to each ride they ride along in.
    var devices: [String: RideDevice] = [:]
    /// Which (ride, sensor) rows hold the device as it is now.
    var devicesWritten: [String: (ride: Int64, device: RideDevice)] = [:]
    /// After a ride was ended on purpose: nothing is kept until the bike moves again.
    var awaitingMovement = false
    /// A ride begun without a position (named "Indoor ride …" until a point with one names it by its place).
    var unplacedRide: Int64?

    public init(path: String, newRideAfter: Double = 30 * 60, context: RideStatistics.Context = .init(), readOnly: Bool = false) throws(SpoolError) {
        self.path = path
        self.readOnly = readOnly
        self.newRideAfter = newRideAfter
        self.context = context
        if !readOnly { SQLiteCalls.makePrivate(path) }
        let handle = readOnly ? try SQLiteCalls.openReadOnly(path) : try SQLiteCalls.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        db = handle
        sqlite3_busy_timeout(handle, 2000)
        guard !readOnly else { return }
        // scripts/bench measures what the small pages save on the SD card.
        // Synced: a batch is 5 s of the ride, and a power cut (how a bike's ride ends) must not roll it back.
        try SQLiteCalls.configureWritable(handle, path: path, synced: true)
        let migration = try SQLiteSchema.migrate(handle, path: path, steps: RideLogSchema.steps, current: RideLogSchema.current)
        if migration.from < 2, migration.to >= 2 { try nameUnnamedRides() }
    }

    deinit { sqlite3_close(db) }

    /// What the ride log's page cache holds now, in bytes: bounded however long the rides get.
    public var pageCacheBytes: Int { SQLiteCalls.pageCacheBytes(db) }

    /// Stores points alone (what most batches are).
    public func record(_ points: [RidePoint]) throws(SpoolError) {
        try record(entries: points.map { .point($0) })
    }

    /// Stores a batch in one transaction, each entry in the ride it belongs to. Points are stored with the
    /// distance the gateway measured; a continued ride's distance carries on from where it stopped. The
    /// statements are prepared once per batch and a ride's row is written once per batch (not per point):
    /// parsing SQL per point was a quarter of the daemon's instructions at 10 Hz.
    public func record(entries batch: [RideLogEntry]) throws(SpoolError) {
        guard !batch.isEmpty else { return }
        try execute("BEGIN IMMEDIATE")
        var closed: [Int64] = []
        do throws(SpoolError) {
            var writer = try BatchWriter(store: self, current: try lastRide())
            defer { writer.finalize() }
            for entry in batch {
                switch entry {
                case .point(let point): if let ended = try writer.add(point) { closed.append(ended) }
                case .lap(let mark): try writer.lap(mark)
                case .device(let device):
                    devices[device.sensorID] = device
                    try writer.writeDevices()
                case .end(let time): if let ended = try writer.end(at: time) { closed.append(ended) }
                }
            }
            try writer.finish()
            try execute("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            devicesWritten.removeAll() // what the rolled-back batch wrote is not there
            throw error
        }
        finished += closed
    }

    /// The rides closed since the last call, oldest first.
    public func takeFinished() -> [Int64] {
        defer { finished.removeAll() }
        return finished
    }

    struct LastRide {
        var id: Int64
        var start: Double
        var end: Double
        var moved: Double
        var points: Int
        var distance: Double
    }

    func lastRide() throws(SpoolError) -> LastRide? {
        let statement = try prepare("SELECT id, start, end, coalesce(moved, end), points, distance FROM rides WHERE closed = 0 ORDER BY end DESC LIMIT 1")
        defer { sqlite3_finalize(statement) }
        let step = sqlite3_step(statement)
        guard step == SQLITE_ROW else {
            guard step == SQLITE_DONE else { throw error("read the last ride") }
            return nil
        }
        return LastRide(id: sqlite3_column_int64(statement, 0), start: sqlite3_column_double(statement, 1), end: sqlite3_column_double(statement, 2),
                        moved: sqlite3_column_double(statement, 3), points: Int(sqlite3_column_int64(statement, 4)),
                        distance: sqlite3_column_double(statement, 5))
    }

    /// Rides without a name (from schema 1, or rebuilt by a salvage) are named from their first point with a
    /// position, or as indoor rides from their start.
    func nameUnnamedRides() throws(SpoolError) {
        let statement = try prepare("""
            SELECT r.id, r.start, p.lat, p.lon FROM rides r LEFT JOIN points p ON p.ride = r.id
                AND p.time = (SELECT min(time) FROM points WHERE ride = r.id AND lat IS NOT NULL AND lon IS NOT NULL)
            WHERE r.name IS NULL
            """)
        defer { sqlite3_finalize(statement) }
        var names: [(Int64, String)] = []
        while try step(statement, "read the unnamed rides") {
            let start = Timestamp(secondsSince1970: sqlite3_column_double(statement, 1))
            let placed = sqlite3_column_type(statement, 2) != SQLITE_NULL && sqlite3_column_type(statement, 3) != SQLITE_NULL
            names.append((sqlite3_column_int64(statement, 0), placed
                ? RideName.make(start: start, latitude: sqlite3_column_double(statement, 2), longitude: sqlite3_column_double(statement, 3))
                : RideName.make(start: start)))
        }
        let update = try prepare("UPDATE rides SET name = ?1 WHERE id = ?2")
        defer { sqlite3_finalize(update) }
        for (id, name) in names {
            sqlite3_reset(update)
            SQLiteCalls.bindText(update, 1, name)
            sqlite3_bind_int64(update, 2, id)
            guard sqlite3_step(update) == SQLITE_DONE else { throw error("name a ride") }
        }
    }

    // MARK: C API helpers (shared with the other SQLite file: SQLiteCalls)

    func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Double?) {
        if let value, value.isFinite { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ statement: OpaquePointer, _ index: Int32, _ value: String?) {
        if let value { SQLiteCalls.bindText(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func execute(_ sql: String) throws(SpoolError) { try SQLiteCalls.execute(db, sql, path: path) }
    func prepare(_ sql: String) throws(SpoolError) -> OpaquePointer { try SQLiteCalls.prepare(db, sql, path: path) }
    func scalar(_ sql: String) throws(SpoolError) -> Int64 { try SQLiteCalls.scalar(db, sql, path: path) }
    func error(_ operation: String) -> SpoolError { SQLiteCalls.error(db, operation, path: path) }
    func text(_ statement: OpaquePointer, _ column: Int32) -> String { SQLiteCalls.text(statement, column) }
}
