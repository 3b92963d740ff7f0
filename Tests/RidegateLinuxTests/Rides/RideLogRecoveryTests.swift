import CSQLite
import Foundation
import Glibc
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// A damaged, truncated or busy ride log, made for real: pages overwritten in the file, the file cut short,
/// another connection holding its lock. Reading a damaged file is an error, never a shorter ride; the gateway's
/// `RideLogFile` sets it aside, saves what can be read, and waits out a lock.
@Suite(.serialized) struct RideLogRecoveryTests {
    static let start = 1_782_057_600.0

    func directory() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-ridelog-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func point(_ t: Double) -> RidePoint {
        RidePoint(time: Timestamp(secondsSince1970: Self.start + t), latitude: 40 + t * 5 / 111_195, longitude: -105, altitude: 1650,
                  speed: 5, distance: t * 5, moving: true, heartRate: 120, cadence: 85, power: 180)
    }

    /// Three rides of 1 500 points each, two hours apart, closed behind the next.
    func threeRides(_ file: String) throws {
        let store = try SQLiteRideStore(path: file, newRideAfter: 1800)
        for ride in 0..<3 {
            for batch in 0..<15 {
                try store.record((0..<100).map { point(Double(ride * 7200 + batch * 100 + $0)) })
            }
        }
        // The first ride waits for its upload to Strava (the queue is salvaged with the rides).
        var job = UploadJob(ride: 1, service: .strava)
        job.detail = "cannot reach Strava"
        try store.update(job)
    }

    func overwrite(_ file: String, at offset: Int, count: Int) throws {
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.seek(toOffset: UInt64(offset))
        handle.write(Data(repeating: 0x5A, count: count))
        try handle.close()
    }

    func size(_ file: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0 }

    @Test("Overwritten pages: reading the rides is an error, never a shorter list; opened for the gateway, the file is kept aside and its readable points saved, the loss counted")
    func overwrittenPages() throws {
        let dir = directory()
        let file = dir + "/rides.sqlite"
        try threeRides(file)
        // Four 1 KiB pages in the middle of the points.
        try overwrite(file, at: size(file) / 2, count: 4 * 1024)
        let reader = try SQLiteRideStore(path: file, readOnly: true)
        #expect(throws: SQLiteFileError.self) {
            for ride in try reader.rides() { _ = try reader.points(ride: ride.id) }
        }
        let log = RideLogFile(path: file, newRideAfter: 1800, context: .init())
        let (store, opened) = try #require(try log.open())
        guard case .recovered(let damage, let aside, let salvage) = opened else {
            Issue.record("the damage was not found at open: \(String(describing: opened))")
            return
        }
        #expect(damage.isDamage && aside == file + ".damaged-1" && FileManager.default.fileExists(atPath: aside))
        #expect(log.recoveries == 1)
        // Every point is either saved or counted as unreadable; a few pages' worth are lost, not the rest.
        #expect(salvage.points + salvage.unreadablePoints == 4500, "\(salvage)")
        #expect(salvage.points > 4000 && salvage.unreadablePoints > 0, "\(salvage)")
        #expect(salvage.rides == 3 && salvage.damagedRides >= 1)
        let rides = try store.rides()
        #expect(rides.map(\.points).reduce(0, +) == salvage.points)
        #expect(try rides.allSatisfy { try store.points(ride: $0.id).count == $0.points })
        #expect(try store.uploads().map(\.detail) == ["cannot reach Strava"])
        // The new file takes the ride on.
        try store.record([point(3 * 7200 + 10)])
        #expect(try store.rides().count == 4)
    }

    @Test("A ride log cut short (a power cut mid-write of its header): kept aside, a new one made, nothing to save")
    func truncated() throws {
        let dir = directory()
        let file = dir + "/rides.sqlite"
        try threeRides(file)
        #expect(truncate(file, 100) == 0)
        let log = RideLogFile(path: file, newRideAfter: 1800, context: .init())
        let (store, opened) = try #require(try log.open())
        guard case .recovered(_, let aside, let salvage) = opened else {
            Issue.record("a truncated file was taken as it is")
            return
        }
        #expect(salvage.rides == 0 && salvage.points == 0 && size(aside) == 100)
        try store.record([point(0), point(1)])
        #expect(try store.rides().map(\.points) == [2])
    }

    @Test("Held by another process at start: the open fails with the reason, is not tried again before its backoff, and succeeds once the lock goes")
    func busyAtStart() async throws {
        let dir = directory()
        let file = dir + "/rides.sqlite"
        try threeRides(file)
        // Another connection takes the file's lock and keeps it (exclusive locking mode, after a write).
        var other: OpaquePointer?
        #expect(sqlite3_open(file, &other) == SQLITE_OK)
        #expect(sqlite3_exec(other, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE rides SET name = name; COMMIT;", nil, nil, nil) == SQLITE_OK)
        let clock = ManualClock()
        let log = RideLogFile(path: file, newRideAfter: 1800, context: .init(), now: clock.now)
        // SQLite waits out its 2 s busy timeout: not on a thread the tests beside this one need.
        let first = try await OffThePool.run { () -> String in
            do {
                _ = try log.open()
                return "opened"
            } catch {
                return "\(error)"
            }
        }
        #expect(first.contains("database is locked"), "\(first)")
        #expect(log.lastFailure?.isDamage == false && log.store == nil)
        #expect(!FileManager.default.fileExists(atPath: file + ".damaged-1"), "a busy file was taken for a damaged one")
        #expect(try log.open() == nil) // not yet due
        #expect(log.retryIn == 5)
        sqlite3_close(other) // the other process ends
        clock.advance(5)
        let (store, opened) = try #require(try log.open())
        guard case .opened = opened else {
            Issue.record("opened as \(String(describing: opened))")
            return
        }
        #expect(try store.rides().count == 3 && log.lastFailure == nil)
    }
}

/// A clock the test moves.
final class ManualClock: @unchecked Sendable {
    private var seconds = 1000.0
    var now: @Sendable () -> Double { { [self] in seconds } }
    func advance(_ by: Double) { seconds += by }
}
