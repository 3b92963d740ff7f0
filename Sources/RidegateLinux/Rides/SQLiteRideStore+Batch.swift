import CSQLite
import RidegateCore

extension SQLiteRideStore {
    /// One batch's writes, inside its transaction: its statements prepared once, the current ride's row written
    /// once at the end (or when the ride closes).
    struct BatchWriter {
        let store: SQLiteRideStore
        var current: LastRide?
        private let insert: OpaquePointer
        private let rideRow: OpaquePointer
        private var rowPoints = 0
        private var rowMovingSeconds = 0.0

        init(store: SQLiteRideStore, current: LastRide?) throws(SpoolError) {
            self.store = store
            self.current = current
            insert = try store.prepare("""
                INSERT INTO points (ride, time, lat, lon, alt, speed, distance, hr, cadence, power, moving)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                """)
            do {
                rideRow = try store.prepare("UPDATE rides SET end = ?1, moved = ?2, points = points + ?3, distance = ?4, moving = moving + ?5 WHERE id = ?6")
            } catch {
                sqlite3_finalize(insert)
                throw error
            }
        }

        func finalize() {
            sqlite3_finalize(insert)
            sqlite3_finalize(rideRow)
        }

        /// Stores a point in its ride; returns the ride it closed first, if it starts a new one.
        mutating func add(_ point: RidePoint) throws(SpoolError) -> Int64? {
            let t = point.time.secondsSince1970
            guard t.isFinite else { return nil }
            if store.awaitingMovement {
                guard point.moving else { return nil }
                store.awaitingMovement = false
            }
            var offset = store.runOffset
            if let ride = current, offset?.ride != ride.id { offset = (ride.id, ride.distance - point.distance) }
            let distance = max(current?.distance ?? 0, point.distance + (offset?.offset ?? 0))
            let moving = point.moving || distance > (current?.distance ?? 0) + 0.5
            var closed: Int64?
            if let ride = current, t - ride.moved > store.newRideAfter || t < ride.start {
                // Stood still (or was off) longer than a stop: the ride is over now — not when the bike next moves,
                // so it is exported and uploaded while the bike stands at home — and nothing is kept until the bike
                // moves, then a new ride.
                guard moving || t < ride.start else {
                    store.runOffset = offset
                    store.awaitingMovement = true
                    return try close(ride) // parked: over
                }
                closed = try close(ride)
            }
            if current == nil {
                try create(point)
                offset = nil
            }
            guard var ride = current, t > ride.end || ride.points == 0 else { return closed } // a repeated or old epoch
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

        private func insertPoint(_ point: RidePoint, ride: Int64, distance: Double) throws(SpoolError) {
            sqlite3_reset(insert)
            sqlite3_bind_int64(insert, 1, ride)
            sqlite3_bind_double(insert, 2, point.time.secondsSince1970)
            store.bind(insert, 3, point.position?.latitude)
            store.bind(insert, 4, point.position?.longitude)
            store.bind(insert, 5, point.altitude)
            store.bind(insert, 6, point.speed)
            sqlite3_bind_double(insert, 7, distance)
            store.bind(insert, 8, point.heartRate.map(Double.init))
            store.bind(insert, 9, point.cadence)
            store.bind(insert, 10, point.power.map(Double.init))
            sqlite3_bind_int(insert, 11, point.moving ? 1 : 0)
            guard sqlite3_step(insert) == SQLITE_DONE else { throw store.error("insert point") }
        }

        private mutating func create(_ point: RidePoint) throws(SpoolError) {
            let t = point.time.secondsSince1970
            let name = point.position.map { RideName.make(start: point.time, latitude: $0.latitude, longitude: $0.longitude) }
                ?? RideName.make(start: point.time)
            let create = try store.prepare("INSERT INTO rides (start, end, moved, distance, name, ftp, power_zones) VALUES (?1, ?1, ?1, 0, ?2, ?3, ?4)")
            sqlite3_bind_double(create, 1, t)
            SQLiteCalls.bindText(create, 2, name)
            store.bind(create, 3, store.context.thresholdPower.map(Double.init))
            store.bind(create, 4, store.context.powerZones.map { $0.lowerBounds.map(String.init).joined(separator: ",") })
            let created = sqlite3_step(create)
            sqlite3_finalize(create)
            guard created == SQLITE_DONE else { throw store.error("create a ride") }
            current = LastRide(id: sqlite3_last_insert_rowid(store.db), start: t, end: t, moved: t, points: 0, distance: 0)
            store.unplacedRide = point.position == nil ? current?.id : nil
            try writeDevices()
        }

        /// Closes the current ride: its row, its standing tail dropped, its totals. The id when it remains.
        private mutating func close(_ ride: LastRide) throws(SpoolError) -> Int64? {
            try writeRow()
            current = nil
            return try store.close(ride) ? ride.id : nil
        }

        /// The rider ended the ride: it closes as it is (its tail kept), and the next movement starts a new one.
        mutating func end(at time: Timestamp) throws(SpoolError) -> Int64? {
            guard var ride = current, time.secondsSince1970 >= ride.start else { return nil }
            ride.moved = ride.end
            current = ride
            store.awaitingMovement = true
            return try close(ride)
        }

        mutating func lap(_ mark: LapMark) throws(SpoolError) {
            guard let ride = current, mark.time.secondsSince1970 >= ride.start else { return }
            let statement = try store.prepare("INSERT INTO laps (ride, time, trigger) VALUES (?1, ?2, ?3)")
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, ride.id)
            sqlite3_bind_double(statement, 2, mark.time.secondsSince1970)
            SQLiteCalls.bindText(statement, 3, mark.trigger.rawValue)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw store.error("store a lap") }
        }

        /// The sensors seen in this run, on the current ride: written when they are new to it or changed.
        mutating func writeDevices() throws(SpoolError) {
            guard let ride = current else { return }
            for device in store.devices.values.sorted(by: { $0.sensorID < $1.sensorID }) {
                if let written = store.devicesWritten[device.sensorID], written.ride == ride.id, written.device == device { continue }
                try store.storeDevice(device, ride: ride.id)
                store.devicesWritten[device.sensorID] = (ride.id, device)
            }
        }

        /// The current ride's row, with what the batch added to it.
        mutating func writeRow() throws(SpoolError) {
            guard let ride = current, rowPoints > 0 else { return }
            sqlite3_reset(rideRow)
            sqlite3_bind_double(rideRow, 1, ride.end)
            sqlite3_bind_double(rideRow, 2, ride.moved)
            sqlite3_bind_int64(rideRow, 3, Int64(rowPoints))
            sqlite3_bind_double(rideRow, 4, ride.distance)
            sqlite3_bind_double(rideRow, 5, rowMovingSeconds)
            sqlite3_bind_int64(rideRow, 6, ride.id)
            guard sqlite3_step(rideRow) == SQLITE_DONE else { throw store.error("update ride") }
            rowPoints = 0
            rowMovingSeconds = 0
        }

        mutating func finish() throws(SpoolError) {
            try writeRow()
        }
    }
}
