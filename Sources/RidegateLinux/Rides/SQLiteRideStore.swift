import CSQLite
import Glibc
import RidegateCore

/// The ride log: every point of every ride, in its own SQLite file (`rides.sqlite` in the state directory,
/// WAL, separate from the spool). Points arrive in batches (one transaction each: the SD card sees a write
/// every few seconds, not one per fix, and no fsync per point); a power cut loses at most the batch in memory.
///
/// Rides split on time (GPS time, never the Pi's clock): a point more than `newRideAfter` seconds after the
/// ride last moved starts a new ride, so a restart or a café stop continues the ride and the next morning
/// does not. A bike standing still longer than that records nothing until it moves again; the standing tail
/// of a ride ended that way is dropped, and a "ride" that never moved is removed. Shorter stops stay in the
/// ride as they were (auto-pause is a gap in moving time, not deleted points).
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
        /// Totals worked out from the points (stored once the ride is finished).
        public var elevationGainMeters: Double?
        public var elevationLossMeters: Double?
        public var averageHeartRate: Double?
        public var maximumHeartRate: Int?

        public var elapsedSeconds: Double { end - start }
    }

    /// The schema, one step per version (`SQLiteSchema`); the last step is the newest layout.
    static let schema = [
        """
        CREATE TABLE rides (id INTEGER PRIMARY KEY AUTOINCREMENT, start REAL NOT NULL, end REAL NOT NULL,
                            points INTEGER NOT NULL DEFAULT 0, distance REAL NOT NULL DEFAULT 0,
                            moving REAL NOT NULL DEFAULT 0, exported TEXT NOT NULL DEFAULT '');
        CREATE TABLE points (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL,
                             lat REAL NOT NULL, lon REAL NOT NULL, alt REAL, speed REAL, distance REAL NOT NULL,
                             hr INTEGER, cadence REAL, power INTEGER);
        CREATE INDEX points_by_ride ON points (ride, time);
        """,
        // 2: a name, the time the ride last moved (for splitting on long stops), totals of a finished ride.
        """
        ALTER TABLE rides ADD COLUMN name TEXT;
        ALTER TABLE rides ADD COLUMN moved REAL;
        ALTER TABLE rides ADD COLUMN gain REAL;
        ALTER TABLE rides ADD COLUMN loss REAL;
        ALTER TABLE rides ADD COLUMN hr_avg REAL;
        ALTER TABLE rides ADD COLUMN hr_max INTEGER;
        UPDATE rides SET moved = end;
        """,
    ]

    /// What the steps end at, for a new file in one go (the added columns last, in the order the steps add them).
    static let currentLayout = """
        CREATE TABLE rides (id INTEGER PRIMARY KEY AUTOINCREMENT, start REAL NOT NULL, end REAL NOT NULL,
                            points INTEGER NOT NULL DEFAULT 0, distance REAL NOT NULL DEFAULT 0,
                            moving REAL NOT NULL DEFAULT 0, exported TEXT NOT NULL DEFAULT '',
                            name TEXT, moved REAL, gain REAL, loss REAL, hr_avg REAL, hr_max INTEGER);
        CREATE TABLE points (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL,
                             lat REAL NOT NULL, lon REAL NOT NULL, alt REAL, speed REAL, distance REAL NOT NULL,
                             hr INTEGER, cadence REAL, power INTEGER);
        CREATE INDEX points_by_ride ON points (ride, time);
        """
    public static var schemaVersion: Int { schema.count }

    public let path: String
    public let newRideAfter: Double
    /// Below this speed (m/s) a point's time is not moving time.
    public let movingSpeed: Double
    private var db: OpaquePointer?
    /// This run's distance offset into its ride: the gateway's distance restarts at 0 with each run (and is
    /// measured from the run's start), the ride's carries on.
    private var runOffset: (ride: Int64, offset: Double)?
    /// Rides this store closed (a new one began after them), for the sink to export; taken with `takeFinished`.
    private var finished: [Int64] = []

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
        let handle = try SQLiteCalls.open(path, flags: readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
        db = handle
        sqlite3_busy_timeout(handle, 2000)
        guard !readOnly else { return }
        // scripts/bench measures what the small pages save on the SD card.
        try SQLiteCalls.configureWritable(handle, path: path)
        let migration = try SQLiteSchema.migrate(handle, path: path, steps: Self.schema, current: Self.currentLayout)
        if migration.from < 2, migration.to >= 2 { try nameUnnamedRides() }
    }

    deinit { sqlite3_close(db) }

    /// What the ride log's page cache holds now, in bytes: bounded however long the rides get.
    public var pageCacheBytes: Int { SQLiteCalls.pageCacheBytes(db) }

    /// Stores a batch of points in one transaction, each in the ride it belongs to. Points are stored with
    /// the distance the gateway measured; a continued ride's distance carries on from where it stopped.
    /// The statements are prepared once per batch and a ride's row is written once per batch (not per
    /// point): parsing SQL per point was a quarter of the daemon's instructions at 10 Hz.
    public func record(_ batch: [RidePoint]) throws(SpoolError) {
        guard !batch.isEmpty else { return }
        try execute("BEGIN IMMEDIATE")
        var closed: [Int64] = []
        do throws(SpoolError) {
            var current = try lastRide()
            let insert = try prepare("INSERT INTO points (ride, time, lat, lon, alt, speed, distance, hr, cadence, power) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
            defer { sqlite3_finalize(insert) }
            var rideRow = try RideRowUpdate(statement: prepare("UPDATE rides SET end = ?1, moved = ?2, points = points + ?3, distance = ?4, moving = moving + ?5 WHERE id = ?6"))
            defer { sqlite3_finalize(rideRow.statement) }
            for point in batch {
                let t = point.time.secondsSince1970
                guard t.isFinite, let position = point.position else { continue }
                var offset = runOffset
                if let ride = current, offset?.ride != ride.id { offset = (ride.id, ride.distance - point.distance) }
                let distance = max(current?.distance ?? 0, point.distance + (offset?.offset ?? 0))
                let moving = (point.speed ?? 0) >= movingSpeed || distance > (current?.distance ?? 0) + 0.5
                if let ride = current, t - ride.moved > newRideAfter || t < ride.start {
                    // Stood still (or was off) longer than a stop: nothing until the bike moves, then a new ride.
                    guard moving || t < ride.start else {
                        runOffset = offset
                        continue
                    }
                    try rideRow.write(ride, db: db, path: path)
                    if try close(ride) { closed.append(ride.id) }
                    current = nil
                }
                if current == nil {
                    let name = RideName.make(start: point.time, latitude: position.latitude, longitude: position.longitude)
                    let create = try prepare("INSERT INTO rides (start, end, moved, distance, name) VALUES (?1, ?1, ?1, 0, ?2)")
                    sqlite3_bind_double(create, 1, t)
                    SQLiteCalls.bindText(create, 2, name)
                    let created = sqlite3_step(create)
                    sqlite3_finalize(create)
                    guard created == SQLITE_DONE else { throw error("create a ride") }
                    current = LastRide(id: sqlite3_last_insert_rowid(db), start: t, end: t, moved: t, points: 0, distance: 0)
                    offset = nil
                }
                guard var ride = current, t > ride.end || ride.points == 0 else { continue } // a repeated or old epoch
                if offset?.ride != ride.id { offset = (ride.id, ride.distance - point.distance) }
                runOffset = offset
                let pointDistance = max(ride.distance, point.distance + (offset?.offset ?? 0))
                let movingTime = ride.points > 0 && (point.speed ?? 0) >= movingSpeed && t - ride.end <= 10 ? t - ride.end : 0
                sqlite3_reset(insert)
                sqlite3_bind_int64(insert, 1, ride.id)
                sqlite3_bind_double(insert, 2, t)
                sqlite3_bind_double(insert, 3, position.latitude)
                sqlite3_bind_double(insert, 4, position.longitude)
                bind(insert, 5, point.altitude)
                bind(insert, 6, point.speed)
                sqlite3_bind_double(insert, 7, pointDistance)
                bind(insert, 8, point.heartRate.map(Double.init))
                bind(insert, 9, point.cadence)
                bind(insert, 10, point.power.map(Double.init))
                guard sqlite3_step(insert) == SQLITE_DONE else { throw error("insert point") }
                if moving { ride.moved = t }
                ride.end = t
                ride.points += 1
                ride.distance = pointDistance
                rideRow.add(movingSeconds: movingTime)
                current = ride
            }
            if let current { try rideRow.write(current, db: db, path: path) }
            try execute("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
        finished += closed
    }

    /// What a batch added to the ride it is in, written to the ride's row when the batch ends or the ride
    /// closes.
    private struct RideRowUpdate {
        let statement: OpaquePointer
        var points = 0
        var movingSeconds = 0.0

        mutating func add(movingSeconds seconds: Double) {
            points += 1
            movingSeconds += seconds
        }

        mutating func write(_ ride: LastRide, db: OpaquePointer?, path: String) throws(SpoolError) {
            guard points > 0 else { return }
            sqlite3_reset(statement)
            sqlite3_bind_double(statement, 1, ride.end)
            sqlite3_bind_double(statement, 2, ride.moved)
            sqlite3_bind_int64(statement, 3, Int64(points))
            sqlite3_bind_double(statement, 4, ride.distance)
            sqlite3_bind_double(statement, 5, movingSeconds)
            sqlite3_bind_int64(statement, 6, ride.id)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw SQLiteCalls.error(db, "update ride", path: path) }
            points = 0
            movingSeconds = 0
        }
    }

    /// Ends a ride a long stop interrupted: drops its standing tail, stores its totals; a ride that never
    /// moved is removed. True when the ride remains (worth exporting).
    private func close(_ ride: LastRide) throws(SpoolError) -> Bool {
        guard ride.distance > 0 else {
            try execute("DELETE FROM points WHERE ride = \(ride.id); DELETE FROM rides WHERE id = \(ride.id)")
            return false
        }
        try execute("""
            DELETE FROM points WHERE ride = \(ride.id) AND time > \(ride.moved);
            UPDATE rides SET end = \(ride.moved), points = (SELECT count(*) FROM points WHERE ride = \(ride.id)) WHERE id = \(ride.id);
            """)
        try storeTotals(ride: ride.id)
        return true
    }

    /// The rides closed since the last call (a new ride began after each), oldest first.
    public func takeFinished() -> [Int64] {
        defer { finished.removeAll() }
        return finished
    }

    /// Works out and stores a ride's elevation and heart-rate totals (for `rides list`).
    public func storeTotals(ride: Int64) throws(SpoolError) {
        let totals = Self.totals(try points(ride: ride))
        let statement = try prepare("UPDATE rides SET gain = ?1, loss = ?2, hr_avg = ?3, hr_max = ?4 WHERE id = ?5")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_double(statement, 1, totals.elevation.gainMeters)
        sqlite3_bind_double(statement, 2, totals.elevation.lossMeters)
        bind(statement, 3, totals.heartRate.average)
        bind(statement, 4, totals.heartRate.maximum.map(Double.init))
        sqlite3_bind_int64(statement, 5, ride)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw error("store totals") }
    }

    static func totals(_ points: [RidePoint]) -> (elevation: ElevationTotals, heartRate: HeartRateTotals) {
        var elevation = ElevationTotals()
        var heartRate = HeartRateTotals()
        for point in points {
            elevation.add(altitude: point.altitude, hdop: nil, at: point.time)
            if let hr = point.heartRate { heartRate.add(hr) }
        }
        return (elevation, heartRate)
    }

    /// Every ride, oldest first. A ride still open (or from before totals were stored) has them worked out
    /// from its points.
    public func rides() throws(SpoolError) -> [Ride] {
        let statement = try prepare("SELECT id, start, end, points, distance, moving, exported, name, gain, loss, hr_avg, hr_max FROM rides ORDER BY start")
        defer { sqlite3_finalize(statement) }
        var result: [Ride] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            func optional(_ column: Int32) -> Double? {
                sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
            }
            let exported = text(statement, 6).split(separator: ",").map(String.init)
            result.append(Ride(id: sqlite3_column_int64(statement, 0), name: text(statement, 7),
                               start: Timestamp(secondsSince1970: sqlite3_column_double(statement, 1)),
                               end: Timestamp(secondsSince1970: sqlite3_column_double(statement, 2)), points: Int(sqlite3_column_int64(statement, 3)),
                               distanceMeters: sqlite3_column_double(statement, 4), movingSeconds: sqlite3_column_double(statement, 5),
                               exported: exported, elevationGainMeters: optional(8), elevationLossMeters: optional(9),
                               averageHeartRate: optional(10), maximumHeartRate: optional(11).map { Int($0) }))
        }
        for index in result.indices where result[index].elevationGainMeters == nil {
            let totals = Self.totals(try points(ride: result[index].id))
            result[index].elevationGainMeters = totals.elevation.gainMeters
            result[index].elevationLossMeters = totals.elevation.lossMeters
            result[index].averageHeartRate = totals.heartRate.average
            result[index].maximumHeartRate = totals.heartRate.maximum
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

    /// Notes that the ride was exported in `format` (for `rides list`, and so the size limit removes exported
    /// rides first).
    public func markExported(ride: Int64, format: String) throws(SpoolError) {
        guard let current = try rides().first(where: { $0.id == ride }), !current.exported.contains(format) else { return }
        let list = (current.exported + [format]).sorted().joined(separator: ",")
        try execute("UPDATE rides SET exported = '\(list.filter { $0.isLetter || $0 == "," })' WHERE id = \(ride)")
    }

    public func delete(ride: Int64) throws(SpoolError) {
        try execute("BEGIN; DELETE FROM points WHERE ride = \(ride); DELETE FROM rides WHERE id = \(ride); COMMIT;")
    }

    /// Bytes the rides take in the file (pages in use; pages freed by removed rides are reused, not returned).
    public func usedBytes() throws(SpoolError) -> Int64 {
        try scalar("PRAGMA page_size") * (try scalar("PRAGMA page_count") - (try scalar("PRAGMA freelist_count")))
    }

    /// Keeps the ride log within its limits: rides that ended more than `maximumAgeDays` before `now` go,
    /// then, while the file holds more than `maximumBytes`, the oldest rides, exported ones first. The newest
    /// ride (perhaps still going) is never removed. Returns what was removed.
    public func prune(maximumBytes: Int64?, maximumAgeDays: Double?, now: Timestamp) throws(SpoolError) -> [Ride] {
        var candidates = Array(try rides().dropLast())
        var removed: [Ride] = []
        if let days = maximumAgeDays {
            for ride in candidates where now - ride.end > days * 86_400 {
                try delete(ride: ride.id)
                removed.append(ride)
            }
            candidates.removeAll { ride in removed.contains { $0.id == ride.id } }
        }
        if let maximumBytes {
            candidates.sort { ($0.exported.isEmpty ? 1 : 0, $0.start) < ($1.exported.isEmpty ? 1 : 0, $1.start) }
            for ride in candidates {
                guard try usedBytes() > maximumBytes else { break }
                try delete(ride: ride.id)
                removed.append(ride)
            }
        }
        return removed
    }

    private struct LastRide {
        var id: Int64
        var start: Double
        var end: Double
        var moved: Double
        var points: Int
        var distance: Double
    }

    private func lastRide() throws(SpoolError) -> LastRide? {
        let statement = try prepare("SELECT id, start, end, coalesce(moved, end), points, distance FROM rides ORDER BY end DESC LIMIT 1")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return LastRide(id: sqlite3_column_int64(statement, 0), start: sqlite3_column_double(statement, 1), end: sqlite3_column_double(statement, 2),
                        moved: sqlite3_column_double(statement, 3), points: Int(sqlite3_column_int64(statement, 4)),
                        distance: sqlite3_column_double(statement, 5))
    }

    /// Rides from schema 1 had no names: each is named from its first point.
    private func nameUnnamedRides() throws(SpoolError) {
        let statement = try prepare("""
            SELECT r.id, p.time, p.lat, p.lon FROM rides r JOIN points p ON p.ride = r.id
            WHERE r.name IS NULL AND p.time = (SELECT min(time) FROM points WHERE ride = r.id)
            """)
        var names: [(Int64, String)] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            names.append((sqlite3_column_int64(statement, 0), RideName.make(
                start: Timestamp(secondsSince1970: sqlite3_column_double(statement, 1)),
                latitude: sqlite3_column_double(statement, 2), longitude: sqlite3_column_double(statement, 3))))
        }
        sqlite3_finalize(statement)
        let update = try prepare("UPDATE rides SET name = ?1 WHERE id = ?2")
        defer { sqlite3_finalize(update) }
        for (id, name) in names {
            sqlite3_reset(update)
            SQLiteCalls.bindText(update, 1, name)
            sqlite3_bind_int64(update, 2, id)
            guard sqlite3_step(update) == SQLITE_DONE else { throw error("name a ride") }
        }
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
