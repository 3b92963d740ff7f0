import CSQLite
import Glibc
import RidegateCore

/// The ride log: every point of every ride, in its own SQLite file (`rides.sqlite` in the state directory,
/// WAL, separate from the spool). Points arrive in batches (one transaction each: the SD card sees a write
/// every few seconds, not one per fix); a power cut loses at most the batch in memory.
///
/// A point more than `newRideAfter` seconds (GPS time) after the last one starts a new ride; a restart
/// within that time continues the ride it interrupted. The schema carries its version (`user_version`).
public final class SQLiteRideStore: @unchecked Sendable {
    public struct Ride: Sendable, Equatable {
        public var id: Int64
        public var start: Timestamp
        public var end: Timestamp
        public var points: Int
        public var distanceMeters: Double
        public var movingSeconds: Double
        public var exported: [String]

        public var elapsedSeconds: Double { end - start }
    }

    public static let schemaVersion = 1
    public let path: String
    public let newRideAfter: Double
    /// Below this speed (m/s) a point's time is not moving time.
    public let movingSpeed: Double
    private var db: OpaquePointer?
    /// This run's distance offset into its ride: the gateway's distance restarts at 0 with each run (and is
    /// measured from the run's start), the ride's carries on.
    private var runOffset: (ride: Int64, offset: Double)?

    public init(path: String, newRideAfter: Double = 30 * 60, movingSpeed: Double = 1.0, readOnly: Bool = false) throws(SpoolError) {
        self.path = path
        self.newRideAfter = newRideAfter
        self.movingSpeed = movingSpeed
        if !readOnly, path.hasPrefix("/") {
            let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) // the track is private: 0600 whatever the umask
            if fd >= 0 {
                _ = fchmod(fd, 0o600)
                Glibc.close(fd)
            }
        }
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        guard sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SpoolError(path: path, operation: "open", message: message)
        }
        db = handle
        sqlite3_busy_timeout(handle, 2000)
        guard !readOnly else { return }
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        let version = try scalar("PRAGMA user_version")
        if version == 0 {
            try execute("""
                BEGIN;
                CREATE TABLE rides (id INTEGER PRIMARY KEY AUTOINCREMENT, start REAL NOT NULL, end REAL NOT NULL,
                                    points INTEGER NOT NULL DEFAULT 0, distance REAL NOT NULL DEFAULT 0,
                                    moving REAL NOT NULL DEFAULT 0, exported TEXT NOT NULL DEFAULT '');
                CREATE TABLE points (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL,
                                     lat REAL NOT NULL, lon REAL NOT NULL, alt REAL, speed REAL, distance REAL NOT NULL,
                                     hr INTEGER, cadence REAL, power INTEGER);
                CREATE INDEX points_by_ride ON points (ride, time);
                PRAGMA user_version = \(Self.schemaVersion);
                COMMIT;
                """)
        } else if version > Self.schemaVersion {
            throw SpoolError(path: path, operation: "open", message: "written by a newer ridegate (schema \(version), this one knows \(Self.schemaVersion))")
        }
    }

    deinit { sqlite3_close(db) }

    /// Stores a batch of points in one transaction, each in the ride it belongs to. Points are stored with
    /// the distance the gateway measured; a continued ride's distance carries on from where it stopped.
    public func record(_ batch: [RidePoint]) throws(SpoolError) {
        guard !batch.isEmpty else { return }
        try execute("BEGIN IMMEDIATE")
        do throws(SpoolError) {
            var current = try lastRide()
            let insert = try prepare("INSERT INTO points (ride, time, lat, lon, alt, speed, distance, hr, cadence, power) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
            defer { sqlite3_finalize(insert) }
            for point in batch {
                let t = point.time.secondsSince1970
                if current == nil || t - (current?.end ?? t) > newRideAfter || t < (current?.start ?? t) {
                    try execute("INSERT INTO rides (start, end, distance) VALUES (\(t), \(t), 0)")
                    current = LastRide(id: sqlite3_last_insert_rowid(db), start: t, end: t, points: 0, distance: 0)
                }
                guard var ride = current, t > ride.end || ride.points == 0 else { continue } // a repeated or old epoch
                if runOffset?.ride != ride.id { runOffset = (ride.id, ride.distance - point.distance) }
                let distance = max(ride.distance, point.distance + (runOffset?.offset ?? 0))
                let moving = ride.points > 0 && (point.speed ?? 0) >= movingSpeed && t - ride.end <= 10 ? t - ride.end : 0
                sqlite3_reset(insert)
                sqlite3_bind_int64(insert, 1, ride.id)
                sqlite3_bind_double(insert, 2, t)
                sqlite3_bind_double(insert, 3, point.latitude)
                sqlite3_bind_double(insert, 4, point.longitude)
                bind(insert, 5, point.altitude)
                bind(insert, 6, point.speed)
                sqlite3_bind_double(insert, 7, distance)
                bind(insert, 8, point.heartRate.map(Double.init))
                bind(insert, 9, point.cadence)
                bind(insert, 10, point.power.map(Double.init))
                guard sqlite3_step(insert) == SQLITE_DONE else { throw error("insert point") }
                try execute("UPDATE rides SET end = \(t), points = points + 1, distance = \(distance), moving = moving + \(moving) WHERE id = \(ride.id)")
                ride.end = t
                ride.points += 1
                ride.distance = distance
                current = ride
            }
            try execute("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    public func rides() throws(SpoolError) -> [Ride] {
        let statement = try prepare("SELECT id, start, end, points, distance, moving, exported FROM rides ORDER BY start")
        defer { sqlite3_finalize(statement) }
        var result: [Ride] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let exported = text(statement, 6).split(separator: ",").map(String.init)
            result.append(Ride(id: sqlite3_column_int64(statement, 0), start: Timestamp(secondsSince1970: sqlite3_column_double(statement, 1)),
                               end: Timestamp(secondsSince1970: sqlite3_column_double(statement, 2)), points: Int(sqlite3_column_int64(statement, 3)),
                               distanceMeters: sqlite3_column_double(statement, 4), movingSeconds: sqlite3_column_double(statement, 5),
                               exported: exported))
        }
        return result
    }

    public func points(ride: Int64) throws(SpoolError) -> [RidePoint] {
        let statement = try prepare("SELECT time, lat, lon, alt, speed, distance, hr, cadence, power FROM points WHERE ride = ?1 ORDER BY time")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, ride)
        var result: [RidePoint] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            func optional(_ column: Int32) -> Double? {
                sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
            }
            result.append(RidePoint(time: Timestamp(secondsSince1970: sqlite3_column_double(statement, 0)),
                                    latitude: sqlite3_column_double(statement, 1), longitude: sqlite3_column_double(statement, 2),
                                    altitude: optional(3), speed: optional(4), distance: sqlite3_column_double(statement, 5),
                                    heartRate: optional(6).map { Int($0) }, cadence: optional(7), power: optional(8).map { Int($0) }))
        }
        return result
    }

    /// Notes that the ride was exported in `format` (for `rides list`).
    public func markExported(ride: Int64, format: String) throws(SpoolError) {
        guard let current = try rides().first(where: { $0.id == ride }), !current.exported.contains(format) else { return }
        let list = (current.exported + [format]).sorted().joined(separator: ",")
        try execute("UPDATE rides SET exported = '\(list.filter { $0.isLetter || $0 == "," })' WHERE id = \(ride)")
    }

    public func delete(ride: Int64) throws(SpoolError) {
        try execute("BEGIN; DELETE FROM points WHERE ride = \(ride); DELETE FROM rides WHERE id = \(ride); COMMIT;")
    }

    private struct LastRide {
        var id: Int64
        var start: Double
        var end: Double
        var points: Int
        var distance: Double
    }

    private func lastRide() throws(SpoolError) -> LastRide? {
        let statement = try prepare("SELECT id, start, end, points, distance FROM rides ORDER BY end DESC LIMIT 1")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return LastRide(id: sqlite3_column_int64(statement, 0), start: sqlite3_column_double(statement, 1), end: sqlite3_column_double(statement, 2),
                        points: Int(sqlite3_column_int64(statement, 3)), distance: sqlite3_column_double(statement, 4))
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Double?) {
        if let value, value.isFinite { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    // MARK: C API helpers (shared with the other SQLite file: SQLiteCalls)

    private func execute(_ sql: String) throws(SpoolError) { try SQLiteCalls.execute(db, sql, path: path) }
    private func prepare(_ sql: String) throws(SpoolError) -> OpaquePointer { try SQLiteCalls.prepare(db, sql, path: path) }
    private func scalar(_ sql: String) throws(SpoolError) -> Int64 { try SQLiteCalls.scalar(db, sql, path: path) }
    private func error(_ operation: String) -> SpoolError { SQLiteCalls.error(db, operation, path: path) }
    private func text(_ statement: OpaquePointer, _ column: Int32) -> String { SQLiteCalls.text(statement, column) }
}
