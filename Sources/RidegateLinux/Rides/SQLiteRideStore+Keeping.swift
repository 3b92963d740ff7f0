import CSQLite
import RidegateCore

extension SQLiteRideStore {
    /// Ends a ride: drops its standing tail, marks it closed, stores its totals; a ride that never moved is
    /// removed. True when the ride remains (worth exporting).
    func close(_ ride: LastRide) throws(SpoolError) -> Bool {
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
    public func storeTotals(ride: Int64) throws(SpoolError) {
        guard let summary = try summary(ride: ride) else { return }
        let statement = try prepare("UPDATE rides SET totals = ?1 WHERE id = ?2")
        defer { sqlite3_finalize(statement) }
        SQLiteCalls.bindText(statement, 1, summary.statistics.stored)
        sqlite3_bind_int64(statement, 2, ride)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw error("store totals") }
    }

    /// Names a ride begun without a position from the first point that has one.
    func name(ride: Int64, from point: RidePoint) throws(SpoolError) {
        guard let position = point.position else { return }
        let statement = try prepare("UPDATE rides SET name = ?1 WHERE id = ?2")
        defer { sqlite3_finalize(statement) }
        let start = Timestamp(secondsSince1970: Double(try scalar("SELECT CAST(start AS INTEGER) FROM rides WHERE id = \(ride)")))
        SQLiteCalls.bindText(statement, 1, RideName.make(start: start, latitude: position.latitude, longitude: position.longitude))
        sqlite3_bind_int64(statement, 2, ride)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw error("name a ride") }
        unplacedRide = nil
    }

    func storeDevice(_ device: RideDevice, ride: Int64) throws(SpoolError) {
        let statement = try prepare("""
            INSERT OR REPLACE INTO devices (ride, sensor, kind, measures, name, manufacturer, model, serial, battery)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, ride)
        SQLiteCalls.bindText(statement, 2, device.sensorID)
        SQLiteCalls.bindText(statement, 3, device.kind.rawValue)
        SQLiteCalls.bindText(statement, 4, device.measures.sorted().map(\.rawValue).joined(separator: ","))
        bind(statement, 5, device.name)
        bind(statement, 6, device.manufacturer)
        bind(statement, 7, device.model)
        bind(statement, 8, device.serialNumber)
        bind(statement, 9, device.batteryPercent.map(Double.init))
        guard sqlite3_step(statement) == SQLITE_DONE else { throw error("store a sensor") }
    }

    /// Notes that a closed ride was exported in `format` (for `rides list`, and so the size limit removes exported
    /// rides first). A ride still open is not marked: a file of half a ride is not the ride.
    public func markExported(ride: Int64, format: String) throws(SpoolError) {
        guard let current = try rides().first(where: { $0.id == ride }), current.closed, !current.exported.contains(format) else { return }
        let list = (current.exported + [format]).sorted().joined(separator: ",")
        try execute("UPDATE rides SET exported = '\(list.filter { $0.isLetter || $0 == "," })' WHERE id = \(ride)")
    }

    public func delete(ride: Int64) throws(SpoolError) {
        try execute("BEGIN; DELETE FROM points WHERE ride = \(ride); DELETE FROM laps WHERE ride = \(ride); DELETE FROM devices WHERE ride = \(ride); DELETE FROM uploads WHERE ride = \(ride); DELETE FROM rides WHERE id = \(ride); COMMIT;")
    }

    /// Bytes the rides take in the file (pages in use; pages freed by removed rides are reused, not returned).
    public func usedBytes() throws(SpoolError) -> Int64 {
        try scalar("PRAGMA page_size") * (try scalar("PRAGMA page_count") - (try scalar("PRAGMA freelist_count")))
    }

    /// Keeps the ride log within its limits: rides that ended more than `maximumAgeDays` before `now` go,
    /// then, while the file holds more than `maximumBytes`, the oldest rides, exported ones first. A ride still
    /// open (perhaps going on) is never removed. Returns what was removed.
    public func prune(maximumBytes: Int64?, maximumAgeDays: Double?, now: Timestamp) throws(SpoolError) -> [Ride] {
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
