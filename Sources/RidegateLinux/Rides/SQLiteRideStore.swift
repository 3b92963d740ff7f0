import CSQLite
import Glibc
import RidegateCore

/// The ride log: every point of every ride, where its laps ended and the sensors that rode along, in its own
/// SQLite file (`rides.sqlite` in the state directory, WAL, separate from the spool). Entries arrive in batches
/// (one transaction each: the SD card sees a write every few seconds, not one per fix, and no fsync per point);
/// a power cut loses at most the batch in memory.
///
/// Which ride a point goes into is `RideBoundaries`' rule (the core's); this file keeps what it decides: the
/// standing tail of a ride that ended parked is dropped, and a "ride" that never moved is removed. A ride is
/// closed once it ended either way: only then are its totals stored, and only then can it count as exported.
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
    public var newRideAfter: Double { boundaries.newRideAfter }
    /// The zones and the rider the totals are counted for.
    public let context: RideStatistics.Context
    /// The training sites a ride is queued for as it ends, in the commit that closes it.
    public let uploadServices: [UploadService]
    private(set) var db: OpaquePointer?
    /// This run's distance offset into its ride: the gateway's distance restarts at 0 with each run (and is
    /// measured from the run's start), the ride's carries on.
    private var runOffset: (ride: Int64, offset: Double)?
    /// Rides this store closed (a new one began after them, or they were ended), for the sink to export.
    private var finished: [Int64] = []
    /// The sensors seen in this run, written to each ride they ride along in.
    private var devices: [String: RideDevice] = [:]
    /// Which (ride, sensor) rows hold the device as it is now.
    private var devicesWritten: [String: (ride: Int64, device: RideDevice)] = [:]
    /// Where each point goes: this ride, the next, or nowhere.
    private var boundaries: RideBoundaries
    /// A ride begun without a position (named "Indoor ride …" until a point with one names it by its place).
    private var unplacedRide: Int64?

    public init(path: String, newRideAfter: Double = 30 * 60, context: RideStatistics.Context = .init(),
                uploadServices: [UploadService] = [], readOnly: Bool = false) throws(SQLiteFileError) {
        self.path = path
        self.readOnly = readOnly
        boundaries = RideBoundaries(newRideAfter: newRideAfter)
        self.context = context
        self.uploadServices = uploadServices
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
    public func record(_ points: [RidePoint]) throws(SQLiteFileError) {
        try record(entries: points.map { .point($0) })
    }

    /// Stores a batch in one transaction, each entry in the ride it belongs to. Points are stored with the
    /// distance the gateway measured; a continued ride's distance carries on from where it stopped. The
    /// statements are prepared once per batch and a ride's row is written once per batch (not per point):
    /// parsing SQL per point was a quarter of the daemon's instructions at 10 Hz.
    public func record(entries batch: [RideLogEntry]) throws(SQLiteFileError) {
        guard !batch.isEmpty else { return }
        try execute("BEGIN IMMEDIATE")
        // What the batch decides on the way is undone with its rows: retried, it must decide the same (a ride
        // parked in a batch that failed would otherwise wait for the bike to move again to end).
        let before = (boundaries, runOffset, unplacedRide)
        var closed: [Int64] = []
        do throws(SQLiteFileError) {
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
            // Queued in the commit that ends the ride: a power cut leaves it open, or ended and queued.
            for ride in closed { try queueUploads(ride: ride, services: uploadServices) }
            try execute("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            (boundaries, runOffset, unplacedRide) = before
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

    private func lastRide() throws(SQLiteFileError) -> LastRide? {
        let statement = try prepare("SELECT id, start, end, coalesce(moved, end), points, distance FROM rides WHERE closed = 0 ORDER BY end DESC LIMIT 1")
        defer { statement.finalize() }
        guard try statement.nextRow("read the last ride") else { return nil }
        return LastRide(id: statement.int64(0), start: statement.double(1), end: statement.double(2),
                        moved: statement.double(3), points: Int(statement.int64(4)),
                        distance: statement.double(5))
    }

    /// Rides without a name (from schema 1, or rebuilt by a salvage) are named from their first point with a
    /// position, or as indoor rides from their start.
    func nameUnnamedRides() throws(SQLiteFileError) {
        let statement = try prepare("""
            SELECT r.id, r.start, p.lat, p.lon FROM rides r LEFT JOIN points p ON p.ride = r.id
                AND p.time = (SELECT min(time) FROM points WHERE ride = r.id AND lat IS NOT NULL AND lon IS NOT NULL)
            WHERE r.name IS NULL
            """)
        defer { statement.finalize() }
        var names: [(Int64, String)] = []
        while try statement.nextRow("read the unnamed rides") {
            let start = Timestamp(secondsSince1970: statement.double(1))
            let placed = !statement.isNull(2) && !statement.isNull(3)
            names.append((statement.int64(0), placed
                ? RideName.make(start: start, latitude: statement.double(2), longitude: statement.double(3),
                                hiding: context.privacyZones)
                : RideName.make(start: start)))
        }
        let update = try prepare("UPDATE rides SET name = ?1 WHERE id = ?2")
        defer { update.finalize() }
        for (id, name) in names {
            update.reset()
            update.bind(1, name)
            update.bind(2, id)
            try update.run("name a ride")
        }
    }

    // MARK: the file (its statements: SQLiteStatement; what both SQLite files share: SQLiteCalls)

    func execute(_ sql: String) throws(SQLiteFileError) { try SQLiteCalls.execute(db, sql, path: path) }
    func prepare(_ sql: String) throws(SQLiteFileError) -> SQLiteStatement { try SQLiteStatement(db, sql, path: path) }
    func scalar(_ sql: String) throws(SQLiteFileError) -> Int64 { try SQLiteCalls.scalar(db, sql, path: path) }
}

extension SQLiteRideStore {
    /// One batch's writes, inside its transaction: its statements prepared once, the current ride's row written
    /// once at the end (or when the ride closes).
    struct BatchWriter {
        private let store: SQLiteRideStore
        private var current: LastRide?
        private let insert: SQLiteStatement
        private let rideRow: SQLiteStatement
        private var rowPoints = 0
        private var rowMovingSeconds = 0.0

        init(store: SQLiteRideStore, current: LastRide?) throws(SQLiteFileError) {
            self.store = store
            self.current = current
            insert = try store.prepare("""
                INSERT INTO points (ride, time, lat, lon, alt, speed, distance, hr, cadence, power, moving)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                """)
            do {
                rideRow = try store.prepare("UPDATE rides SET end = ?1, moved = ?2, points = points + ?3, distance = ?4, moving = moving + ?5 WHERE id = ?6")
            } catch {
                insert.finalize()
                throw error
            }
        }

        func finalize() {
            insert.finalize()
            rideRow.finalize()
        }

        /// Stores a point in its ride; returns the ride it closed first, if it starts a new one.
        mutating func add(_ point: RidePoint) throws(SQLiteFileError) -> Int64? {
            let t = point.time.secondsSince1970
            guard t.isFinite else { return nil }
            var offset = store.runOffset
            if let ride = current, offset?.ride != ride.id { offset = (ride.id, ride.distance - point.distance) }
            let distance = max(current?.distance ?? 0, point.distance + (offset?.offset ?? 0))
            let moving = point.moving || distance > (current?.distance ?? 0) + 0.5
            var closed: Int64?
            let open = current.map { RideBoundaries.OpenRide(start: $0.start, end: $0.end, moved: $0.moved, points: $0.points) }
            switch store.boundaries.place(time: t, pointMoving: point.moving, moving: moving, in: open) {
            case .skip:
                return nil
            case .park:
                store.runOffset = offset
                guard let parked = current else { return nil }
                return try close(parked) // parked: over
            case .newRide:
                if let ride = current { closed = try close(ride) }
            case .add:
                break
            }
            if current == nil {
                try create(point)
                offset = nil
            }
            guard var ride = current else { return closed }
            if offset?.ride != ride.id { offset = (ride.id, ride.distance - point.distance) }
            store.runOffset = offset
            let pointDistance = max(ride.distance, point.distance + (offset?.offset ?? 0))
            let movingTime = ride.points > 0 && point.moving && t - ride.end <= RideStatistics.maximumGap ? t - ride.end : 0
            try insertPoint(point, ride: ride.id, distance: pointDistance)
            if point.position != nil, store.unplacedRide == ride.id { try store.name(ride: ride.id, from: point) }
            if moving { ride.moved = t }
            ride.end = t
            ride.points += 1
            ride.distance = pointDistance
            rowPoints += 1
            rowMovingSeconds += movingTime
            current = ride
            return closed
        }

        private func insertPoint(_ point: RidePoint, ride: Int64, distance: Double) throws(SQLiteFileError) {
            insert.reset()
            insert.bind(1, ride)
            insert.bind(2, point.time.secondsSince1970)
            insert.bind(3, orNull: point.position?.latitude)
            insert.bind(4, orNull: point.position?.longitude)
            insert.bind(5, orNull: point.altitude)
            insert.bind(6, orNull: point.speed)
            insert.bind(7, distance)
            insert.bind(8, orNull: point.heartRate.map(Double.init))
            insert.bind(9, orNull: point.cadence)
            insert.bind(10, orNull: point.power.map(Double.init))
            insert.bind(11, point.moving)
            try insert.run("insert point")
        }

        private mutating func create(_ point: RidePoint) throws(SQLiteFileError) {
            let t = point.time.secondsSince1970
            let name = point.position.map {
                RideName.make(start: point.time, latitude: $0.latitude, longitude: $0.longitude, hiding: store.context.privacyZones)
            }
                ?? RideName.make(start: point.time)
            let create = try store.prepare("INSERT INTO rides (start, end, moved, distance, name, ftp, power_zones) VALUES (?1, ?1, ?1, 0, ?2, ?3, ?4)")
            create.bind(1, t)
            create.bind(2, name)
            create.bind(3, orNull: store.context.ftp.map(Double.init))
            create.bind(4, orNull: store.context.powerZones.map { $0.lowerBounds.map(String.init).joined(separator: ",") })
            defer { create.finalize() }
            try create.run("create a ride")
            current = LastRide(id: sqlite3_last_insert_rowid(store.db), start: t, end: t, moved: t, points: 0, distance: 0)
            store.unplacedRide = point.position == nil ? current?.id : nil
            try writeDevices()
        }

        /// Closes the current ride: its row, its standing tail dropped, its totals. The id when it remains.
        private mutating func close(_ ride: LastRide) throws(SQLiteFileError) -> Int64? {
            try writeRow()
            current = nil
            return try store.close(ride) ? ride.id : nil
        }

        /// The rider ended the ride: it closes as it is (its tail kept), and the next movement starts a new one.
        mutating func end(at time: Timestamp) throws(SQLiteFileError) -> Int64? {
            guard var ride = current, time.secondsSince1970 >= ride.start else { return nil }
            ride.moved = ride.end
            current = ride
            store.boundaries.rideEnded()
            return try close(ride)
        }

        mutating func lap(_ mark: LapMark) throws(SQLiteFileError) {
            guard let ride = current, mark.time.secondsSince1970 >= ride.start else { return }
            let statement = try store.prepare("INSERT INTO laps (ride, time, trigger) VALUES (?1, ?2, ?3)")
            defer { statement.finalize() }
            statement.bind(1, ride.id)
            statement.bind(2, mark.time.secondsSince1970)
            statement.bind(3, mark.trigger.rawValue)
            try statement.run("store a lap")
        }

        /// The sensors seen in this run, on the current ride: written when they are new to it or changed.
        mutating func writeDevices() throws(SQLiteFileError) {
            guard let ride = current else { return }
            for device in store.devices.values.sorted(by: { $0.sensorID < $1.sensorID }) {
                if let written = store.devicesWritten[device.sensorID], written.ride == ride.id, written.device == device { continue }
                try store.storeDevice(device, ride: ride.id)
                store.devicesWritten[device.sensorID] = (ride.id, device)
            }
        }

        /// The current ride's row, with what the batch added to it.
        private mutating func writeRow() throws(SQLiteFileError) {
            guard let ride = current, rowPoints > 0 else { return }
            rideRow.reset()
            rideRow.bind(1, ride.end)
            rideRow.bind(2, ride.moved)
            rideRow.bind(3, Int64(rowPoints))
            rideRow.bind(4, ride.distance)
            rideRow.bind(5, rowMovingSeconds)
            rideRow.bind(6, ride.id)
            try rideRow.run("update ride")
            rowPoints = 0
            rowMovingSeconds = 0
        }

        mutating func finish() throws(SQLiteFileError) {
            try writeRow()
        }
    }
}

extension SQLiteRideStore {
    /// Every ride, oldest first. A ride still open (or from before totals were stored) has them worked out from
    /// its points. A read that fails partway (a damaged page) is an error, never a shorter list.
    public func rides() throws(SQLiteFileError) -> [Ride] {
        try rides(matching: "")
    }

    /// One ride (nil: no such ride), without working out any other's totals.
    public func ride(id: Int64) throws(SQLiteFileError) -> Ride? {
        try rides(matching: "WHERE id = \(id)").first
    }

    /// The newest closed ride: its totals are stored, so no open ride's points are read.
    public func newestClosedRide() throws(SQLiteFileError) -> Ride? {
        try rides(matching: "WHERE closed = 1 AND start = (SELECT max(start) FROM rides WHERE closed = 1)").last
    }

    private func rides(matching condition: String) throws(SQLiteFileError) -> [Ride] {
        let statement = try prepare("""
            SELECT id, start, end, points, distance, moving, exported, name, closed, totals,
                   (SELECT count(*) FROM laps WHERE laps.ride = rides.id) FROM rides \(condition) ORDER BY start
            """)
        defer { statement.finalize() }
        var result: [Ride] = []
        while try statement.nextRow("read the rides") {
            let exported = statement.text(6).split(separator: ",").map(String.init)
            let totals = statement.isNull(9) ? nil : RideStatistics(stored: statement.text(9))
            result.append(Ride(id: statement.int64(0), name: statement.text(7),
                               start: Timestamp(secondsSince1970: statement.double(1)),
                               end: Timestamp(secondsSince1970: statement.double(2)), points: Int(statement.int64(3)),
                               distanceMeters: statement.double(4), movingSeconds: statement.double(5),
                               exported: exported, closed: statement.int64(8) != 0, statistics: totals,
                               laps: Int(statement.int64(10)) + 1))
        }
        for index in result.indices where result[index].statistics == nil {
            result[index].statistics = try summary(ride: result[index].id)?.statistics
        }
        return result
    }

    /// The ride's points in time order, one at a time: a long ride is never whole in memory.
    public func forEachPoint(ride: Int64, _ body: (RidePoint) throws(SQLiteFileError) -> Void) throws(SQLiteFileError) {
        let statement = try prepare("SELECT time, lat, lon, alt, speed, distance, hr, cadence, power, moving FROM points WHERE ride = ?1 ORDER BY time")
        defer { statement.finalize() }
        statement.bind(1, ride)
        while try statement.nextRow("read the ride's points") {
            func optional(_ column: Int32) -> Double? { statement.optionalDouble(column) }
            try body(RidePoint(time: Timestamp(secondsSince1970: statement.double(0)),
                               latitude: optional(1), longitude: optional(2), altitude: optional(3), speed: optional(4),
                               distance: statement.double(5), moving: statement.int64(9) != 0,
                               heartRate: optional(6).flatMap { Int(rounding: $0, within: 0...0xFFFF) }, cadence: optional(7),
                               power: optional(8).flatMap { Int(rounding: $0, within: -0x8000...0xFFFF) }))
        }
    }

    public func points(ride: Int64) throws(SQLiteFileError) -> [RidePoint] {
        var points: [RidePoint] = []
        try forEachPoint(ride: ride) { points.append($0) }
        return points
    }

    public func laps(ride: Int64) throws(SQLiteFileError) -> [LapMark] {
        let statement = try prepare("SELECT time, trigger FROM laps WHERE ride = ?1 ORDER BY time")
        defer { statement.finalize() }
        statement.bind(1, ride)
        var marks: [LapMark] = []
        while try statement.nextRow("read the ride's laps") {
            marks.append(LapMark(time: Timestamp(secondsSince1970: statement.double(0)),
                                 trigger: LapMark.Trigger(rawValue: statement.text(1)) ?? .manual))
        }
        return marks
    }

    public func devices(ride: Int64) throws(SQLiteFileError) -> [RideDevice] {
        let statement = try prepare("SELECT sensor, kind, measures, name, manufacturer, model, serial, battery FROM devices WHERE ride = ?1 ORDER BY sensor")
        defer { statement.finalize() }
        statement.bind(1, ride)
        var devices: [RideDevice] = []
        while try statement.nextRow("read the ride's sensors") {
            func optionalText(_ column: Int32) -> String? { statement.optionalText(column) }
            guard let kind = SensorProfile.named(statement.text(1)) else { continue }
            devices.append(RideDevice(sensorID: statement.text(0), kind: kind,
                                      measures: Set(statement.text(2).split(separator: ",").compactMap { SensorMeasure(rawValue: String($0)) }),
                                      name: optionalText(3), manufacturer: optionalText(4), model: optionalText(5), serialNumber: optionalText(6),
                                      batteryPercent: statement.isNull(7) ? nil : Int(statement.int64(7))))
        }
        return devices
    }

    /// The ride's totals and laps from its points (a pass over them), counted in the zones it was ridden with.
    public func summary(ride: Int64) throws(SQLiteFileError) -> RideSummary? {
        var builder = RideSummary.Builder(laps: try laps(ride: ride), context: try context(ride: ride))
        try forEachPoint(ride: ride) { builder.add($0) }
        return builder.finish()
    }

    /// This store's context with the FTP and power zones the ride was ridden with, where the ride log has them (a
    /// ride recorded before they were kept, or without an FTP, is counted in this store's).
    public func context(ride: Int64) throws(SQLiteFileError) -> RideStatistics.Context {
        let statement = try prepare("SELECT ftp, power_zones FROM rides WHERE id = ?1 AND power_zones IS NOT NULL")
        defer { statement.finalize() }
        statement.bind(1, ride)
        var ridden = context
        guard try statement.nextRow("read the ride's zones") else { return ridden }
        let zones = ZoneBoundaries(lowerBounds: statement.text(1).split(separator: ",").compactMap { Int($0) })
        guard zones.isValid, zones.lowerBounds.allSatisfy({ (0...0xFFFE).contains($0) }) else { return ridden }
        ridden.powerZones = zones
        ridden.ftp = statement.isNull(0) ? nil : Int(statement.int64(0))
        return ridden
    }
}

extension SQLiteRideStore {
    /// Ends a ride: drops its standing tail, marks it closed, stores its totals; a ride that never moved is
    /// removed. True when the ride remains (worth exporting).
    private func close(_ ride: LastRide) throws(SQLiteFileError) -> Bool {
        guard try scalar("SELECT count(*) FROM points WHERE ride = \(ride.id) AND moving = 1") > 0 else {
            try execute("DELETE FROM points WHERE ride = \(ride.id); DELETE FROM laps WHERE ride = \(ride.id); DELETE FROM devices WHERE ride = \(ride.id); DELETE FROM rides WHERE id = \(ride.id)")
            return false
        }
        try execute("""
            DELETE FROM points WHERE ride = \(ride.id) AND time > \(ride.moved);
            UPDATE rides SET end = \(ride.moved), closed = 1, points = (SELECT count(*) FROM points WHERE ride = \(ride.id)) WHERE id = \(ride.id);
            """)
        try storeTotals(ride: ride.id)
        if unplacedRide == ride.id { unplacedRide = nil }
        return true
    }

    /// Works out and stores a ride's totals (for `rides list` and `rides/last`).
    public func storeTotals(ride: Int64) throws(SQLiteFileError) {
        guard let summary = try summary(ride: ride) else { return }
        let statement = try prepare("UPDATE rides SET totals = ?1 WHERE id = ?2")
        defer { statement.finalize() }
        statement.bind(1, summary.statistics.stored)
        statement.bind(2, ride)
        try statement.run("store totals")
    }

    /// Names a ride begun without a position from the first point that has one.
    private func name(ride: Int64, from point: RidePoint) throws(SQLiteFileError) {
        guard let position = point.position else { return }
        let statement = try prepare("UPDATE rides SET name = ?1 WHERE id = ?2")
        defer { statement.finalize() }
        let start = Timestamp(secondsSince1970: Double(try scalar("SELECT CAST(start AS INTEGER) FROM rides WHERE id = \(ride)")))
        statement.bind(1, RideName.make(start: start, latitude: position.latitude, longitude: position.longitude,
                                                          hiding: context.privacyZones))
        statement.bind(2, ride)
        try statement.run("name a ride")
        unplacedRide = nil
    }

    private func storeDevice(_ device: RideDevice, ride: Int64) throws(SQLiteFileError) {
        let statement = try prepare("""
            INSERT OR REPLACE INTO devices (ride, sensor, kind, measures, name, manufacturer, model, serial, battery)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        defer { statement.finalize() }
        statement.bind(1, ride)
        statement.bind(2, device.sensorID)
        statement.bind(3, device.kind.rawValue)
        statement.bind(4, device.measures.sorted().map(\.rawValue).joined(separator: ","))
        statement.bind(5, orNull: device.name)
        statement.bind(6, orNull: device.manufacturer)
        statement.bind(7, orNull: device.model)
        statement.bind(8, orNull: device.serialNumber)
        statement.bind(9, orNull: device.batteryPercent.map(Double.init))
        try statement.run("store a sensor")
    }

    /// Notes that a closed ride was exported in `format` (for `rides list`, and so the size limit removes exported
    /// rides first). A ride still open is not marked: a file of half a ride is not the ride.
    public func markExported(ride: Int64, format: String) throws(SQLiteFileError) {
        guard let current = try rides().first(where: { $0.id == ride }), current.closed, !current.exported.contains(format) else { return }
        let list = (current.exported + [format]).sorted().joined(separator: ",")
        try execute("UPDATE rides SET exported = '\(list.filter { $0.isLetter || $0 == "," })' WHERE id = \(ride)")
    }

    public func delete(ride: Int64) throws(SQLiteFileError) {
        try execute("BEGIN; DELETE FROM points WHERE ride = \(ride); DELETE FROM laps WHERE ride = \(ride); DELETE FROM devices WHERE ride = \(ride); DELETE FROM uploads WHERE ride = \(ride); DELETE FROM rides WHERE id = \(ride); COMMIT;")
    }

    /// Bytes the rides take in the file (pages in use; pages freed by removed rides are reused, not returned).
    public func usedBytes() throws(SQLiteFileError) -> Int64 {
        try scalar("PRAGMA page_size") * (try scalar("PRAGMA page_count") - (try scalar("PRAGMA freelist_count")))
    }

    /// Keeps the ride log within its limits: rides that ended more than `maximumAgeDays` before `now` go,
    /// then, while the file holds more than `maximumBytes`, the oldest rides, exported ones first. A ride still
    /// open (perhaps going on) is never removed. Returns what was removed.
    public func prune(maximumBytes: Int64?, maximumAgeDays: Double?, now: Timestamp) throws(SQLiteFileError) -> [Ride] {
        var candidates = try rides().filter(\.closed)
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
}

/// The upload queue: a row per finished ride and training site, in the ride log beside the ride itself, so it
/// is synced with it and survives what the ride survives (a restart, a power cut).
extension SQLiteRideStore {
    /// Queues the ride for each site it is not queued for yet (a ride queued before keeps its row and state).
    public func queueUploads(ride: Int64, services: [UploadService]) throws(SQLiteFileError) {
        for service in services {
            try execute("INSERT OR IGNORE INTO uploads (ride, service, state) VALUES (\(ride), '\(service.rawValue)', 'queued')")
        }
    }

    /// Every queued upload (`ride`: that ride's only), by ride then site.
    public func uploads(ride: Int64? = nil) throws(SQLiteFileError) -> [UploadJob] {
        let statement = try prepare("""
            SELECT ride, service, state, attempts, next_attempt, upload_id, activity_id, activity_url, detail FROM uploads
            \(ride.map { "WHERE ride = \($0)" } ?? "") ORDER BY ride, service
            """)
        defer { statement.finalize() }
        var jobs: [UploadJob] = []
        while try statement.nextRow("read the upload queue") {
            // A row no release wrote (a hand edit, a later release's site) is left alone.
            guard let service = UploadService(rawValue: statement.text(1)), let state = UploadJob.State(rawValue: statement.text(2)) else {
                continue
            }
            var job = UploadJob(ride: statement.int64(0), service: service)
            job.state = state
            job.attempts = Int(statement.int64(3))
            job.nextAttempt = statement.optionalDouble(4).map { Timestamp(secondsSince1970: $0) }
            job.uploadID = statement.optionalText(5)
            job.activityID = statement.optionalText(6)
            job.activityURL = statement.optionalText(7)
            job.detail = statement.optionalText(8)
            jobs.append(job)
        }
        return jobs
    }

    /// Writes the job's row (synced, as every write to the ride log is).
    public func update(_ job: UploadJob) throws(SQLiteFileError) {
        let statement = try prepare("""
            INSERT OR REPLACE INTO uploads (ride, service, state, attempts, next_attempt, upload_id, activity_id, activity_url, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        defer { statement.finalize() }
        statement.bind(1, job.ride)
        statement.bind(2, orNull: job.service.rawValue)
        statement.bind(3, orNull: job.state.rawValue)
        statement.bind(4, Int64(job.attempts))
        statement.bind(5, orNull: job.nextAttempt?.secondsSince1970)
        statement.bind(6, orNull: job.uploadID)
        statement.bind(7, orNull: job.activityID)
        statement.bind(8, orNull: job.activityURL)
        statement.bind(9, orNull: job.detail)
        try statement.run("write the upload queue")
    }
}
