import CSQLite
import Foundation
import Glibc
import RidegateCore
import RidegateLinux
import Testing

/// The ride log on disk: batches, a restart that continues the ride, a pause long enough to start a new one.
@Suite struct SQLiteRideStoreTests {
    func path() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-rides-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/rides.sqlite"
    }

    /// A point every second going north at 5 m/s, `distance` as the gateway measured it in this run.
    func point(_ t: Double, distance: Double, hr: Int? = 120) -> RidePoint {
        RidePoint(time: Timestamp(secondsSince1970: 1_782_057_600 + t), latitude: 40 + t * 5 / 111_195, longitude: -105, altitude: 1650,
                  speed: 5, distance: distance, moving: true, heartRate: hr, cadence: 85, power: 180)
    }

    @Test("Batches make one ride; a restart within the limit continues it and its distance; a long pause starts a new one")
    func ridesAndRestarts() throws {
        let file = path()
        do {
            let store = try SQLiteRideStore(path: file, newRideAfter: 1800)
            try store.record((0..<10).map { point(Double($0), distance: Double($0) * 5) })
            try store.record((10..<20).map { point(Double($0), distance: Double($0) * 5) })
        }
        // The gateway restarts 5 minutes later: its distance starts from 0 again.
        let store = try SQLiteRideStore(path: file, newRideAfter: 1800)
        try store.record((320..<330).map { point(Double($0), distance: Double($0 - 320) * 5) })
        var rides = try store.rides()
        #expect(rides.count == 1)
        #expect(rides[0].points == 30)
        #expect(abs(rides[0].distanceMeters - (19 * 5 + 9 * 5)) < 0.001, "\(rides[0].distanceMeters)") // no jump, no reset
        #expect(rides[0].movingSeconds == 19 + 9) // the 5-minute stop is not moving time
        #expect(rides[0].elapsedSeconds == 329)
        // An hour later: a new ride, from 0.
        try store.record((4000..<4005).map { point(Double($0), distance: 1000 + Double($0 - 4000) * 5) })
        rides = try store.rides()
        #expect(rides.count == 2 && rides[1].points == 5 && rides[1].distanceMeters == 20)
        let points = try store.points(ride: rides[0].id)
        #expect(points.count == 30 && zip(points, points.dropFirst()).allSatisfy { $0.time < $1.time })
        #expect(points.allSatisfy { $0.heartRate == 120 && $0.power == 180 && $0.cadence == 85 })
        // A repeated epoch is not stored twice.
        try store.record([point(4004, distance: 1020)])
        #expect(try store.rides()[1].points == 5)
        try store.markExported(ride: rides[0].id, format: "gpx")
        try store.markExported(ride: rides[0].id, format: "gpx")
        #expect(try store.rides()[0].exported == ["gpx"])
        try store.delete(ride: rides[0].id)
        #expect(try store.rides().map(\.id) == [rides[1].id])
        #expect(try store.points(ride: rides[0].id).isEmpty)
    }

    @Test("A ride keeps the FTP and power zones it was ridden with: a config read later (another FTP, or none) does not change its zones")
    func ridesKeepTheirFTP() throws {
        let file = path()
        let ridden = ZoneBoundaries.power(ftp: 250)
        let id: Int64
        do {
            let store = try SQLiteRideStore(path: file, context: RideStatistics.Context(powerZones: ridden, ftp: 250))
            try store.record((0..<30).map { point(Double($0), distance: Double($0) * 5) })
            id = try #require(try store.rides().first?.id)
        }
        for later in [RideStatistics.Context(), RideStatistics.Context(powerZones: ZoneBoundaries.power(ftp: 180), ftp: 180)] {
            let context = try SQLiteRideStore(path: file, context: later).context(ride: id)
            #expect(context.ftp == 250 && context.powerZones == ridden, "\(context)")
        }
    }

    @Test("A ride ends queued for its training sites in the same commit: a queue that cannot be written leaves it open, never ended unqueued")
    func endAndQueueInOneCommit() throws {
        let file = path()
        let store = try SQLiteRideStore(path: file, newRideAfter: 60, uploadServices: [.intervalsICU, .strava])
        try store.record((0..<20).map { point(Double($0), distance: Double($0) * 5) })
        // Nothing can be queued now (a trigger stands for a full disk or an I/O error at that write).
        var db: OpaquePointer?
        #expect(sqlite3_open(file, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "CREATE TRIGGER refuse BEFORE INSERT ON uploads BEGIN SELECT RAISE(ABORT, 'no room'); END", nil, nil, nil) == SQLITE_OK)
        // The bike stands past the minute: the ride ends with this batch, which fails as a whole.
        #expect(throws: SQLiteFileError.self) { try store.record([standing(90, distance: 95)]) }
        #expect(try store.rides().map(\.closed) == [false] && store.takeFinished().isEmpty)
        #expect(sqlite3_exec(db, "DROP TRIGGER refuse", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        // The same batch again: ended, and queued for both sites.
        try store.record([standing(90, distance: 95)])
        let ride = try #require(try store.rides().first)
        #expect(ride.closed && store.takeFinished() == [ride.id])
        #expect(try store.uploads(ride: ride.id).map(\.service).sorted() == [.intervalsICU, .strava])
        #expect(try store.uploads(ride: ride.id).allSatisfy { $0.state == .queued })
    }

    @Test("A long ride's log keeps a small page cache (SQLite's default would take 2 MB)")
    func boundedPageCache() throws {
        let store = try SQLiteRideStore(path: path(), newRideAfter: 1800)
        for batch in 0..<60 { // an hour and a half at 5 points a second: about 2 MB
            try store.record((0..<450).map { i in let t = Double(batch * 450 + i) / 5; return point(t, distance: t * 5) })
        }
        #expect(store.pageCacheBytes > 64 * 1024, "the cache measure reads nothing: \(store.pageCacheBytes) bytes")
        #expect(store.pageCacheBytes <= 300 * 1024, "\(store.pageCacheBytes) bytes of page cache for the ride log")
    }

    @Test("The file is private (0600) whatever the umask")
    func fileModeAndVersion() throws {
        let file = path()
        let old = umask(0o022)
        defer { umask(old) }
        _ = try SQLiteRideStore(path: file)
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// Standing still at `t` (speed 0, the gateway's distance unchanged).
    func standing(_ t: Double, distance: Double) -> RidePoint {
        var p = point(t, distance: distance)
        p.speed = 0
        p.moving = false
        p.latitude = 40
        return p
    }

    @Test("A stop longer than the gap ends the ride once it is that long (the bike at home): the standing tail dropped, nothing kept while standing, the next move starts a new named ride")
    func longStopSplits() throws {
        let store = try SQLiteRideStore(path: path(), newRideAfter: 600)
        try store.record((0..<10).map { point(Double($0), distance: Double($0) * 5) })
        // A café stop of 5 minutes: kept in the ride, as a gap in moving time.
        try store.record((10..<310).map { standing(Double($0), distance: 45) })
        try store.record((310..<320).map { point(Double($0), distance: 45 + Double($0 - 309) * 5) })
        #expect(try store.rides().count == 1 && (try store.rides()[0].points) == 320)
        #expect(store.takeFinished().isEmpty)
        // Home: parked for two hours with the Pi on. Ten minutes of standing end the ride there and then (so it is
        // exported and uploaded at home): its standing tail dropped, its café stop kept; then nothing is kept.
        try store.record(stride(from: 320.0, to: 7520, by: 1).map { standing($0, distance: 95) })
        var rides = try store.rides()
        #expect(rides.count == 1 && rides[0].closed && rides[0].points == 320, "\(rides[0])")
        #expect(rides[0].end.secondsSince1970 == 1_782_057_600 + 319 && rides[0].distanceMeters == 95)
        #expect(store.takeFinished() == [rides[0].id])
        // Off again: a new ride.
        try store.record((7520..<7530).map { point(Double($0), distance: 95 + Double($0 - 7519) * 5) })
        rides = try store.rides()
        #expect(rides.count == 2)
        #expect(rides[1].points == 10 && rides[1].distanceMeters == 45 && rides[1].name.hasSuffix("near 40.34° N 105.00° W"))
        #expect(store.takeFinished().isEmpty)
        #expect(rides[0].closed && !rides[1].closed)
        #expect(
            rides[0].statistics?.averageHeartRate == 120 && rides[0].statistics?.maximumHeartRate == 120 && rides[0].statistics?.ascentMeters == 0)
    }

    @Test("One batch that holds a ride, a long stop and the next ride (the log catching up after a stall): both rides whole")
    func longStopInsideOneBatch() throws {
        let store = try SQLiteRideStore(path: path(), newRideAfter: 600)
        let first = (0..<10).map { point(Double($0), distance: Double($0) * 5) }
        let stop = stride(from: 10.0, to: 1000, by: 1).map { standing($0, distance: 45) }
        let second = (1000..<1010).map { point(Double($0), distance: 45 + Double($0 - 999) * 5) }
        try store.record(first + stop + second)
        let rides = try store.rides()
        #expect(rides.count == 2)
        #expect(rides[0].points == 10 && rides[0].distanceMeters == 45 && rides[0].movingSeconds == 9, "\(rides[0])")
        #expect(rides[0].end.secondsSince1970 == 1_782_057_600 + 9)
        #expect(rides[1].points == 10 && rides[1].distanceMeters == 45 && rides[1].movingSeconds == 9, "\(rides[1])")
        #expect(store.takeFinished() == [rides[0].id])
    }

    @Test("A gateway that never moved leaves no ride behind once it has stood past the gap")
    func standingOnlyIsNoRide() throws {
        let store = try SQLiteRideStore(path: path(), newRideAfter: 600)
        try store.record(stride(from: 0.0, to: 500, by: 1).map { standing($0, distance: 0) })
        #expect(try store.rides().count == 1)
        // Standing past the gap: it was no ride, and is gone.
        try store.record(stride(from: 500.0, to: 1000, by: 1).map { standing($0, distance: 0) })
        #expect(try store.rides().isEmpty && store.takeFinished().isEmpty)
        try store.record((5000..<5010).map { point(Double($0), distance: Double($0 - 4999) * 5) })
        let rides = try store.rides()
        #expect(rides.count == 1 && rides[0].points == 10)
        #expect(store.takeFinished().isEmpty)
    }

    @Test("Limits: rides past keep_days go; over the size limit the oldest exported go first, then the oldest; never the newest")
    func pruning() throws {
        let store = try SQLiteRideStore(path: path(), newRideAfter: 60)
        for day in 0..<5 { // five rides, a day apart, 2000 points each
            let t0 = Double(day) * 86_400
            try store.record((0..<2000).map { point(t0 + Double($0), distance: Double($0) * 5) })
        }
        let ids = try store.rides().map(\.id)
        #expect(ids.count == 5)
        try store.markExported(ride: ids[2], format: "fit")
        let now = Timestamp(secondsSince1970: 1_782_057_600 + 4 * 86_400 + 3000)
        // Age: rides that ended more than 3.5 days ago: the first.
        var removed = try store.prune(maximumBytes: nil, maximumAgeDays: 3.5, now: now)
        #expect(removed.map(\.id) == [ids[0]])
        // Size: room for about two rides. The exported one goes first, then the oldest; the newest stays.
        let perRide = try store.usedBytes() / 4
        removed = try store.prune(maximumBytes: perRide * 2 + perRide / 2, maximumAgeDays: nil, now: now)
        #expect(removed.map(\.id) == [ids[2], ids[1]], "\(removed.map(\.id))")
        #expect(try store.rides().map(\.id) == [ids[3], ids[4]])
        // Even a tiny limit keeps the newest ride.
        _ = try store.prune(maximumBytes: 1, maximumAgeDays: 0.001, now: now)
        #expect(try store.rides().map(\.id) == [ids[4]])
    }
}

extension SQLiteRideStoreTests {
    @Test("Only a closed ride counts as exported: a file of a ride still going is not the ride (the size limit would take it first)")
    func exportedOnlyOnceClosed() throws {
        let store = try SQLiteRideStore(path: path(), newRideAfter: 60)
        try store.record((0..<10).map { point(Double($0), distance: Double($0) * 5) })
        let open = try #require(try store.rides().first)
        try store.markExported(ride: open.id, format: "fit")
        #expect(try store.rides().first?.exported == [] && open.closed == false)
        // The ride ends (the rider held the lap button): now it is whole, and a file of it counts.
        try store.record(entries: [.end(Timestamp(secondsSince1970: 1_782_057_610))])
        try store.markExported(ride: open.id, format: "fit")
        #expect(try store.rides().first?.exported == ["fit"] && store.takeFinished() == [open.id])
        // Standing still after the end keeps nothing; the next movement is a new ride, however soon.
        try store.record((20..<25).map { standing(Double($0), distance: 45) })
        #expect(try store.rides().count == 1)
        try store.record((25..<30).map { point(Double($0), distance: 45 + Double($0 - 24) * 5) })
        #expect(try store.rides().count == 2)
    }

    @Test("Laps and sensors are kept with their ride; points without a position (indoors) too, the ride named for it")
    func lapsDevicesAndIndoorPoints() throws {
        let store = try SQLiteRideStore(path: path(), newRideAfter: 600)
        let strap = RideDevice(sensorID: "AA:BB", kind: .heartRate, measures: [.heartRate], name: "Polar H10", serialNumber: "X1", batteryPercent: 90)
        var entries: [RideLogEntry] = [.device(strap)]
        entries += (0..<100).map { t -> RideLogEntry in
            .point(RidePoint(time: Timestamp(secondsSince1970: 1_782_057_600 + Double(t)), distance: 0, moving: true, heartRate: 130, power: 200))
        }
        entries.insert(.lap(LapMark(time: Timestamp(secondsSince1970: 1_782_057_650), trigger: .manual)), at: 51)
        try store.record(entries: entries)
        let ride = try #require(try store.rides().first)
        #expect(ride.name == "Indoor ride 2026-06-21" && ride.points == 100 && ride.laps == 2)
        #expect(try store.devices(ride: ride.id) == [strap])
        #expect(try store.laps(ride: ride.id).map(\.trigger) == [.manual])
        #expect(try store.points(ride: ride.id).allSatisfy { $0.position == nil && $0.moving })
        #expect(ride.statistics?.timerSeconds == 99 && ride.statistics?.averagePower == 200)
    }
}
