import CSQLite
import Foundation
import RidegateLinux
import Testing

@Suite struct SQLiteSpoolTests {
    func path() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-spool-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("spool.sqlite").path
    }

    @Test("Readings come back oldest first, survive reopening, and leave when acknowledged")
    func orderAndDurability() throws {
        let file = path()
        var ids: [Int64] = []
        do {
            let spool = try SQLiteSpool(path: file)
            for i in 0..<5 { ids.append(try spool.append(topic: "gps", payload: "{\"seq\":\(i)}", qos: 1)) }
            try spool.remove([ids[1]])
            try spool.save(sequence: 41, for: "gps")
            #expect(FileManager.default.fileExists(atPath: file + "-wal")) // WAL mode, on disk
        }
        let reopened = try SQLiteSpool(path: file)
        #expect(try reopened.pending(after: 0, limit: 10).map(\.payload) == ["{\"seq\":0}", "{\"seq\":2}", "{\"seq\":3}", "{\"seq\":4}"])
        #expect(try reopened.pending(after: ids[2], limit: 1).map(\.id) == [ids[3]])
        #expect(reopened.depth() == 4 && reopened.lastID() == ids[4])
        #expect(reopened.sequences() == ["gps": 41])
    }

    @Test("When full, the oldest readings are dropped and counted: every reading is pending or counted, the bound holds, the count survives a restart")
    func dropOldest() throws {
        let file = path()
        let bound: Int64 = 1024 * 1024 // spool_max_mb's smallest setting
        let appended: Int64 = 20_000   // about 5 MB of readings
        var dropped: Int64 = 0
        do {
            let spool = try SQLiteSpool(path: file, maximumBytes: bound)
            let payload = String(repeating: "x", count: 200)
            for _ in 0..<appended { try spool.append(topic: "heart_rate", payload: payload, qos: 1) }
            dropped = spool.dropped
            let depth = spool.depth()
            #expect(dropped + depth == appended, "dropped \(dropped) + pending \(depth) != \(appended): readings lost uncounted")
            // The bound: the payloads alone of what is kept fit in it, and it is not emptied either.
            #expect(depth * 200 <= bound, "\(depth) readings of 200 bytes kept under a \(bound)-byte bound")
            #expect(depth >= 2500, "only \(depth) kept: dropping far more than the bound asks")
            // Oldest first: what is left is exactly the newest readings.
            #expect(try spool.pending(after: 0, limit: 1).first?.id == dropped + 1)
            #expect(spool.lastID() == appended)
        }
        #expect(try SQLiteSpool(path: file).dropped == dropped)
    }

    @Test("The page cache stays small however large the spool grows (SQLite's default would take 2 MB)")
    func boundedPageCache() throws {
        let spool = try SQLiteSpool(path: path())
        let payload = String(repeating: "x", count: 200)
        for _ in 0..<8_000 { try spool.append(topic: "heart_rate", payload: payload, qos: 1) } // about 2 MB
        _ = try spool.pending(after: 0, limit: 500)
        #expect(spool.pageCacheBytes > 64 * 1024, "the cache measure reads nothing: \(spool.pageCacheBytes) bytes")
        #expect(spool.pageCacheBytes <= 300 * 1024, "\(spool.pageCacheBytes) bytes of page cache for one spool")
    }

    @Test("SQLite keeps no memory statistics, which took a global mutex around each of its allocations")
    func noMemoryStatistics() throws {
        let spool = try SQLiteSpool(path: path())
        _ = try spool.append(topic: "gps", payload: "{}", qos: 1)
        var current: Int64 = -1
        var highest: Int64 = -1
        #expect(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highest, 0) == SQLITE_OK)
        #expect(current == 0 && highest == 0, "SQLite counts its memory: \(current) bytes now, \(highest) at most")
        spool.close()
    }

    @Test("A reading and its seq are stored in one step: after a reopen both are there, the seq as the newest")
    func readingAndSequenceTogether() throws {
        let file = path()
        do {
            let spool = try SQLiteSpool(path: file)
            for seq in 1...3 { try spool.append(topic: "gps", payload: "{\"seq\":\(seq)}", qos: 1, sequence: seq) }
            try spool.append(topic: "heart_rate", payload: "{\"seq\":9}", qos: 1, sequence: 9)
            try spool.append(topic: "log", payload: "no seq", qos: 1) // a reading without one leaves the numbers alone
        }
        let reopened = try SQLiteSpool(path: file)
        #expect(reopened.sequences() == ["gps": 3, "heart_rate": 9])
        #expect(reopened.depth() == 5)
    }

    @Test("Ids keep rising after every reading was delivered, across reopens, and past reserved ones: never given out twice")
    func idsNeverReused() throws {
        let file = path()
        do {
            let spool = try SQLiteSpool(path: file)
            let ids = try spool.append((1...3).map { NewReading(topic: "gps", payload: "{}", qos: 1, sequence: $0) })
            #expect(ids == [1, 2, 3])
            try spool.remove(ids)
            #expect(spool.depth() == 0)
            #expect(try spool.highestID() == 3)
        }
        do {
            let reopened = try SQLiteSpool(path: file)
            #expect(try reopened.highestID() == 3)
            #expect(try reopened.append(topic: "gps", payload: "{}", qos: 1) == 4)
            try reopened.reserveIDs(through: 500)
            try reopened.reserveIDs(through: 10) // never backwards
            #expect(try reopened.append(topic: "gps", payload: "{}", qos: 1) == 501)
        }
        let again = try SQLiteSpool(path: file)
        #expect(try again.append(topic: "gps", payload: "{}", qos: 1) == 502)
        #expect(again.sequences() == ["gps": 3])
    }

    @Test("A reading's transaction writes two pages to the journal (its row's, and the page of the seq numbers and the highest id), not three")
    func twoPagesPerReading() throws {
        let file = path()
        let spool = try SQLiteSpool(path: file)
        func walBytes() throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) }
        for seq in 1...5 { try spool.append(topic: "gps", payload: "{\"seq\":\(seq)}", qos: 1, sequence: seq) }
        let before = try walBytes()
        for seq in 6...15 { try spool.append(topic: "gps", payload: "{\"seq\":\(seq)}", qos: 1, sequence: seq) }
        // A WAL frame is a 24-byte header and a page; a new file's pages are 1 KiB.
        let frames = (try walBytes() - before) / (24 + 1024)
        #expect(frames == 10 * 2, "\(frames) journal frames for 10 readings")
    }

    @Test("An unusable path is a clear error, not a crash")
    func badPath() {
        #expect(throws: SQLiteFileError.self) { try SQLiteSpool(path: "/nonexistent-dir/spool.sqlite") }
    }
}
