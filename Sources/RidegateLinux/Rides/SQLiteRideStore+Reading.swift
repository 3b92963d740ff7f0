import CSQLite
import RidegateCore

extension SQLiteRideStore {
    /// Every ride, oldest first. A ride still open (or from before totals were stored) has them worked out from
    /// its points. A read that fails partway (a damaged page) is an error, never a shorter list.
    public func rides() throws(SpoolError) -> [Ride] {
        try rides(matching: "")
    }

    /// One ride (nil: no such ride), without working out any other's totals.
    public func ride(id: Int64) throws(SpoolError) -> Ride? {
        try rides(matching: "WHERE id = \(id)").first
    }

    /// The newest closed ride: its totals are stored, so no open ride's points are read.
    public func newestClosedRide() throws(SpoolError) -> Ride? {
        try rides(matching: "WHERE closed = 1 AND start = (SELECT max(start) FROM rides WHERE closed = 1)").last
    }

    private func rides(matching condition: String) throws(SpoolError) -> [Ride] {
        let statement = try prepare("""
            SELECT id, start, end, points, distance, moving, exported, name, closed, totals,
                   (SELECT count(*) FROM laps WHERE laps.ride = rides.id) FROM rides \(condition) ORDER BY start
            """)
        defer { sqlite3_finalize(statement) }
        var result: [Ride] = []
        while try step(statement, "read the rides") {
            let exported = text(statement, 6).split(separator: ",").map(String.init)
            let totals = sqlite3_column_type(statement, 9) == SQLITE_NULL ? nil : RideStatistics(stored: text(statement, 9))
            result.append(Ride(id: sqlite3_column_int64(statement, 0), name: text(statement, 7),
                               start: Timestamp(secondsSince1970: sqlite3_column_double(statement, 1)),
                               end: Timestamp(secondsSince1970: sqlite3_column_double(statement, 2)), points: Int(sqlite3_column_int64(statement, 3)),
                               distanceMeters: sqlite3_column_double(statement, 4), movingSeconds: sqlite3_column_double(statement, 5),
                               exported: exported, closed: sqlite3_column_int(statement, 8) != 0, statistics: totals,
                               laps: Int(sqlite3_column_int64(statement, 10)) + 1))
        }
        for index in result.indices where result[index].statistics == nil {
            result[index].statistics = try summary(ride: result[index].id)?.statistics
        }
        return result
    }

    /// The ride's points in time order, one at a time: a long ride is never whole in memory.
    public func forEachPoint(ride: Int64, _ body: (RidePoint) throws(SpoolError) -> Void) throws(SpoolError) {
        let statement = try prepare("SELECT time, lat, lon, alt, speed, distance, hr, cadence, power, moving FROM points WHERE ride = ?1 ORDER BY time")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, ride)
        while try step(statement, "read the ride's points") {
            func optional(_ column: Int32) -> Double? {
                sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
            }
            try body(RidePoint(time: Timestamp(secondsSince1970: sqlite3_column_double(statement, 0)),
                               latitude: optional(1), longitude: optional(2), altitude: optional(3), speed: optional(4),
                               distance: sqlite3_column_double(statement, 5), moving: sqlite3_column_int(statement, 9) != 0,
                               heartRate: optional(6).flatMap { Int(rounding: $0, within: 0...0xFFFF) }, cadence: optional(7),
                               power: optional(8).flatMap { Int(rounding: $0, within: -0x8000...0xFFFF) }))
        }
    }

    public func points(ride: Int64) throws(SpoolError) -> [RidePoint] {
        var points: [RidePoint] = []
        try forEachPoint(ride: ride) { points.append($0) }
        return points
    }

    public func laps(ride: Int64) throws(SpoolError) -> [LapMark] {
        let statement = try prepare("SELECT time, trigger FROM laps WHERE ride = ?1 ORDER BY time")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, ride)
        var marks: [LapMark] = []
        while try step(statement, "read the ride's laps") {
            marks.append(LapMark(time: Timestamp(secondsSince1970: sqlite3_column_double(statement, 0)),
                                 trigger: LapMark.Trigger(rawValue: text(statement, 1)) ?? .manual))
        }
        return marks
    }

    public func devices(ride: Int64) throws(SpoolError) -> [RideDevice] {
        let statement = try prepare("SELECT sensor, kind, measures, name, manufacturer, model, serial, battery FROM devices WHERE ride = ?1 ORDER BY sensor")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, ride)
        var devices: [RideDevice] = []
        while try step(statement, "read the ride's sensors") {
            func optionalText(_ column: Int32) -> String? { sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : text(statement, column) }
            guard let kind = SensorProfile.named(text(statement, 1)) else { continue }
            devices.append(RideDevice(sensorID: text(statement, 0), kind: kind,
                                      measures: Set(text(statement, 2).split(separator: ",").compactMap { SensorMeasure(rawValue: String($0)) }),
                                      name: optionalText(3), manufacturer: optionalText(4), model: optionalText(5), serialNumber: optionalText(6),
                                      batteryPercent: sqlite3_column_type(statement, 7) == SQLITE_NULL ? nil : Int(sqlite3_column_int(statement, 7))))
        }
        return devices
    }

    /// The ride's totals and laps from its points (a pass over them), counted in the zones it was ridden with.
    public func summary(ride: Int64) throws(SpoolError) -> RideSummary? {
        var builder = RideSummary.Builder(laps: try laps(ride: ride), context: try context(ride: ride))
        try forEachPoint(ride: ride) { builder.add($0) }
        return builder.finish()
    }

    /// This store's context with the FTP and power zones the ride was ridden with, where the ride log has them (a
    /// ride recorded before they were kept, or without an FTP, is counted in this store's).
    public func context(ride: Int64) throws(SpoolError) -> RideStatistics.Context {
        let statement = try prepare("SELECT ftp, power_zones FROM rides WHERE id = ?1 AND power_zones IS NOT NULL")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, ride)
        var ridden = context
        guard try step(statement, "read the ride's zones") else { return ridden }
        let zones = ZoneBoundaries(lowerBounds: text(statement, 1).split(separator: ",").compactMap { Int($0) })
        guard zones.isValid, zones.lowerBounds.allSatisfy({ (0...0xFFFE).contains($0) }) else { return ridden }
        ridden.powerZones = zones
        ridden.thresholdPower = sqlite3_column_type(statement, 0) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, 0))
        return ridden
    }

    /// One step of a query: true for a row, false at its end, an error for anything else (SQLITE_CORRUPT is not
    /// "no more rows").
    func step(_ statement: OpaquePointer, _ operation: String) throws(SpoolError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(operation)
        }
    }
}
