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
                  speed: 5, distance: distance, heartRate: hr, cadence: 85, power: 180)
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

    @Test("The file is private (0600) whatever the umask")
    func fileModeAndVersion() throws {
        let file = path()
        let old = umask(0o022)
        defer { umask(old) }
        _ = try SQLiteRideStore(path: file)
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}
