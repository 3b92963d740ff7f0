import Foundation
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// A package upgrade never loses a spool or a ride: files written by the previous release (Tests/Fixtures/
/// previous-release) open with this one, keep every reading and point, and carry the new schema version.
@Suite struct SchemaMigrationTests {
    /// A path in a directory of its own, where nothing is yet.
    func newFile(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-migrate-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/" + name
    }

    func copy(_ name: String) throws -> String {
        let target = try newFile(name)
        try FileManager.default.copyItem(atPath: Fixtures.repositoryRoot + "/Tests/Fixtures/previous-release/" + name, toPath: target)
        return target
    }

    func userVersion(_ path: String) async throws -> Int {
        let printed = try await PythonSQLite.run("print(sqlite3.connect(sys.argv[1]).execute('pragma user_version').fetchone()[0])", [path])
        return Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("The previous release's ride log (schema 1): every point kept, the ride named from its first point, totals worked out; schema 2 after")
    func rideLogFromSchemaOne() async throws {
        let file = try copy("rides.sqlite")
        #expect(try await userVersion(file) == 1)
        let store = try SQLiteRideStore(path: file)
        let rides = try store.rides()
        #expect(rides.count == 1)
        let ride = try #require(rides.first)
        #expect(ride.points == 265 && abs(ride.distanceMeters - 1659.233) < 0.01)
        #expect(ride.name == "Morning ride 2026-06-21 near 40.01° N 105.27° W", "\(ride.name)") // Boulder, 16:00 UTC
        #expect(try store.points(ride: ride.id).count == 265)
        #expect((ride.statistics?.averageHeartRate ?? 0) > 60 && ride.statistics?.timerSeconds ?? 0 > 0)
        #expect(try await userVersion(file) == SQLiteRideStore.schemaVersion)
        // The migrated ride carries on: a point 10 minutes later, moving, joins it.
        let last = try #require(try store.points(ride: ride.id).last)
        var next = last
        next.time = last.time + 600
        next.latitude = (last.latitude ?? 0) + 0.001
        try store.record([next])
        #expect(try store.rides().count == 1 && (try store.rides().first?.points) == 266)
    }

    @Test("The previous release's spool (no schema version): all 835 readings, their ids and sequence numbers kept; new ids follow the old highest; the current schema after")
    func spoolFromVersionZero() async throws {
        let file = try copy("spool.sqlite")
        #expect(try await userVersion(file) == 0)
        let spool = try SQLiteSpool(path: file)
        #expect(spool.depth() == 835)
        let pending = try spool.pending(after: 0, limit: 1000)
        #expect(pending.first?.id == 1 && pending.last?.id == 835 && pending.count == 835)
        #expect((spool.sequences()["heart_rate"] ?? 0) > 0 || (spool.sequences()["gps"] ?? 0) > 0)
        #expect(spool.sequences()[""] == nil, "the highest-id record is not a topic's seq")
        // Everything delivered, then a new reading: its id is above every old one (AUTOINCREMENT's promise, kept).
        try spool.remove(pending.map(\.id))
        #expect(try spool.append(topic: "gps", payload: "{}", qos: 1) == 836)
        spool.close() // the spool holds its file alone while open
        #expect(try await userVersion(file) == SQLiteSpool.schemaVersion)
        let reopened = try SQLiteSpool(path: file)
        #expect(try reopened.append(topic: "gps", payload: "{}", qos: 1) == 837)
        reopened.close()
    }

    @Test("A spool of schema 1 (AUTOINCREMENT) with every reading delivered: after the upgrade, the next id still follows the highest it gave")
    func spoolFromSchemaOneDelivered() async throws {
        let file = try newFile("spool.sqlite")
        // Schema 1 as the previous release wrote it: 50 readings, all delivered (deleted), seq 50: only
        // sqlite_sequence still knows the highest id.
        _ = try await PythonSQLite.run("""
            c = sqlite3.connect(sys.argv[1])
            c.executescript(
                "CREATE TABLE spool (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, payload TEXT NOT NULL, qos INTEGER NOT NULL);"
                "CREATE TABLE sequence (topic TEXT PRIMARY KEY, value INTEGER NOT NULL);"
                "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
                "PRAGMA user_version = 1;")
            for n in range(1, 51): c.execute("INSERT INTO spool (topic, payload, qos) VALUES ('gps', ?, 1)", ('{"seq":%d}' % n,))
            c.execute("DELETE FROM spool")
            c.execute("INSERT INTO sequence VALUES ('gps', 50)")
            c.commit()
            """, [file])
        #expect(try await userVersion(file) == 1)
        let spool = try SQLiteSpool(path: file)
        #expect(try spool.pending(after: 0, limit: 10).isEmpty)
        #expect(spool.sequences() == ["gps": 50])
        #expect(try spool.append(topic: "gps", payload: #"{"seq":51}"#, qos: 1, sequence: 51) == 51)
        spool.close()
        #expect(try await userVersion(file) == SQLiteSpool.schemaVersion)
    }

    @Test("A new spool is made in its current layout at once, the layout the previous release's spool is upgraded to")
    func newSpoolLayout() async throws {
        let upgraded = try copy("spool.sqlite")
        try SQLiteSpool(path: upgraded).close()
        let new = try newFile("spool.sqlite")
        try SQLiteSpool(path: new).close()
        #expect(try await PythonSQLite.layout(new) == PythonSQLite.layout(upgraded))
        #expect(try await userVersion(new) == SQLiteSpool.schemaVersion)
        // Made at once, not by the steps: their AUTOINCREMENT leaves sqlite_sequence behind and their ALTER
        // TABLE RENAME (whose re-reading of the schema took 0.5 MB) quotes the name. The upgraded file has both.
        let made = try await PythonSQLite.tableStatements(new)
        #expect(made["sqlite_sequence"] == nil && made["spool"]?.hasPrefix("CREATE TABLE spool ") == true, "\(made)")
        let stepped = try await PythonSQLite.tableStatements(upgraded)
        #expect(stepped["sqlite_sequence"] != nil && stepped["spool"]?.hasPrefix(#"CREATE TABLE "spool""#) == true, "\(stepped)")
        // What the upgrade is for: without AUTOINCREMENT a reading is written on two journal pages, not three.
        #expect(stepped["spool"]?.contains("AUTOINCREMENT") == false, "\(stepped)")
        // And it works: a reading in, the same reading out, with the first id.
        let spool = try SQLiteSpool(path: new)
        #expect(try spool.append(topic: "gps", payload: "{}", qos: 1) == 1)
        #expect(try spool.pending(after: 0, limit: 10).map(\.payload) == ["{}"])
        spool.close()
    }

    @Test("A new ride log is made in its current layout at once, the layout the previous release's ride log is upgraded to")
    func newRideLogLayout() async throws {
        let upgraded = try copy("rides.sqlite")
        _ = try SQLiteRideStore(path: upgraded)
        let new = try newFile("rides.sqlite")
        _ = try SQLiteRideStore(path: new)
        #expect(try await PythonSQLite.layout(new) == PythonSQLite.layout(upgraded))
        #expect(try await userVersion(new) == SQLiteRideStore.schemaVersion)
        // Made at once, not by the steps: ADD COLUMN appends its columns to the stored statement after a
        // ", " (the upgraded file shows it); the current layout puts them on a line of their own.
        let added = "DEFAULT '', name TEXT"
        #expect(try await PythonSQLite.tableStatements(new)["rides"]?.contains(added) == false)
        #expect(try await PythonSQLite.tableStatements(upgraded)["rides"]?.contains(added) == true)
    }

    @Test("A file from a newer ridegate is refused with what to do, not misread")
    func newerSchemaRefused() async throws {
        let file = try copy("rides.sqlite")
        _ = try await PythonSQLite.run("c = sqlite3.connect(sys.argv[1]); c.execute('pragma user_version = 99'); c.commit()", [file])
        #expect {
            _ = try SQLiteRideStore(path: file)
        } throws: { error in
            "\(error)".contains("newer ridegate (schema 99, this one knows up to \(SQLiteRideStore.schemaVersion))")
        }
    }
}
