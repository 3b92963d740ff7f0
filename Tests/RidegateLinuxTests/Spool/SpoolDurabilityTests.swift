import Foundation
@testable import RidegateLinux
import RidegateTestSupport
import Testing

/// What a power cut can take from the spool, and what it cannot: a synced commit at least every 5 s, and `seq`
/// rows that lead what was published, so a start after a cut never gives a `seq` twice.
struct SpoolDurabilityTests {
    @Test("A commit is synced at the start, then at most every 5 s, and whenever a topic's seq reaches its bound")
    func plan() {
        var durability = SpoolDurability(stored: ["gps": 40])
        var plan = durability.plan([("gps", 30)], at: 100)
        #expect(plan.synced && plan.rows.isEmpty) // the run's first commit
        durability = plan.next
        plan = durability.plan([("gps", 31)], at: 102)
        #expect(!plan.synced)
        durability = plan.next
        plan = durability.plan([("gps", 40)], at: 103) // reaches its bound: raised, in a synced commit
        #expect(plan.synced && plan.rows.map(\.bound) == [40 + SpoolDurability.lead])
        durability = plan.next
        plan = durability.plan([], at: 107)
        #expect(!plan.synced)
        plan = durability.plan([], at: 108.5)
        #expect(plan.synced)
    }

    /// Marks the file as last opened in another boot, as a Pi's next boot finds it.
    static func anotherBoot(_ path: String) async throws {
        _ = try await PythonSQLite.run("c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE counters SET value = 12345 WHERE name = 'boot'\"); c.commit()", [path])
    }

    /// The spool's files as a machine that stopped now would leave them (the connection still open).
    static func copy(_ path: String, to target: String) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.removeItem(atPath: target + suffix)
            try FileManager.default.copyItem(atPath: path + suffix, toPath: target + suffix)
        }
    }

    @Test("A start after a power cut continues above the bounds; after a crash in the same boot, or an orderly close, from the last seq")
    func restartAfterCut() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rg-durable-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/spool.sqlite"
        var spool: SQLiteSpool? = try SQLiteSpool(path: path)
        for seq in 1...150 { _ = try spool?.append([NewReading(topic: "gps", payload: "{\"seq\":\(seq)}", qos: 1, sequence: seq)]) }
        // A crash (the kernel kept every write): the same boot, so the last seq given.
        try Self.copy(path, to: directory + "/crash.sqlite")
        #expect(try SQLiteSpool(path: directory + "/crash.sqlite").sequences() == ["gps": 150])
        // A power cut: the file was last opened in another boot and not closed in order. 150 may be what the disk
        // kept, while the broker had readings after it: the start continues above the bound.
        try Self.copy(path, to: directory + "/cut.sqlite")
        try await Self.anotherBoot(directory + "/cut.sqlite")
        let afterCut = try #require(try SQLiteSpool(path: directory + "/cut.sqlite").sequences()["gps"])
        #expect(afterCut > 150 && afterCut <= 150 + SpoolDurability.lead, "\(afterCut)")
        // An orderly close: the last seq, whatever the boot.
        spool = nil
        try await Self.anotherBoot(path)
        #expect(try SQLiteSpool(path: path).sequences() == ["gps": 150])
    }

    @Test("After a cut, a run that does not publish a topic and stops in order leaves the topic above its bound: the next run gives no seq twice")
    func unpublishedTopicAfterCut() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rg-durable-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/spool.sqlite"
        let before = try SQLiteSpool(path: path)
        for seq in 1...150 { _ = try before.append([NewReading(topic: "gps", payload: "{\"seq\":\(seq)}", qos: 1, sequence: seq)]) }
        for seq in 1...10 { _ = try before.append([NewReading(topic: "heart_rate", payload: "{\"seq\":\(seq)}", qos: 1, sequence: seq)]) }
        // The broker may hold heart_rate's seqs up to its bound (1 + lead): the cut came with the file open.
        try Self.copy(path, to: directory + "/cut.sqlite")
        try await Self.anotherBoot(directory + "/cut.sqlite")
        // The ride after the cut: no strap, only gps published, then an orderly stop.
        let ride = try SQLiteSpool(path: directory + "/cut.sqlite")
        let gps = try #require(ride.sequences()["gps"])
        _ = try ride.append([NewReading(topic: "gps", payload: "{\"seq\":\(gps + 1)}", qos: 1, sequence: gps + 1)])
        ride.close()
        // The next ride has the strap: it continues heart_rate above anything given before the cut.
        let next = try #require(try SQLiteSpool(path: directory + "/cut.sqlite").sequences()["heart_rate"])
        #expect(next >= 1 + SpoolDurability.lead, "\(next)")
    }

    @Test("A damaged spool's salvage continues each topic above its bound: whether it was closed in order is not known")
    func salvageTakesBounds() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rg-durable-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/spool.sqlite"
        let spool = try SQLiteSpool(path: path)
        for seq in 1...10 { _ = try spool.append([NewReading(topic: "heart_rate", payload: "{\"seq\":\(seq)}", qos: 1, sequence: seq)]) }
        try Self.copy(path, to: directory + "/damaged.sqlite")
        let salvaged = try #require(SpoolSalvage.read(path: directory + "/damaged.sqlite").sequences["heart_rate"])
        #expect(salvaged >= 1 + SpoolDurability.lead, "\(salvaged)")
    }

    @Test("The ride log's commits are synced (a batch is 5 s of the ride): its connection runs synchronous=FULL")
    func rideLogSynced() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rg-durable-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try SQLiteRideStore(path: directory + "/rides.sqlite")
        #expect(try SQLiteCalls.scalar(store.db, "PRAGMA synchronous", path: store.path) == 2) // FULL
    }
}
