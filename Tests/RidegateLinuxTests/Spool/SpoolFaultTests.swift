import Foundation
import Glibc
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// A corrupt spool and a full disk, made for real: bytes overwritten in the file, a tmpfs filled to the last
/// byte. Both end with nothing lost silently: every reading is pending, in order, or counted as dropped.
@Suite(.serialized) struct SpoolFaultTests {
    func directory() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-fault-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func payload(_ seq: Int) -> String { #"{"ts":"2026-06-21T16:00:00.000Z","seq":\#(seq),"bpm":\#(100 + seq % 60),"pad":""# + String(repeating: "x", count: 150) + #""}"# }

    /// Writes `count` readings (seq 1…count) and closes the file, its WAL checkpointed into it.
    func writeSpool(_ file: String, count: Int) throws {
        let spool = try SQLiteSpool(path: file)
        for seq in 1...count { try spool.append(topic: "heart_rate", payload: payload(seq), qos: 1, sequence: seq) }
        spool.close()
        #expect(
            !FileManager.default.fileExists(atPath: file + "-wal")
                || (try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) == 0)
    }

    func overwrite(_ file: String, at offset: Int, count: Int, with byte: UInt8) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        try handle.seek(toOffset: UInt64(offset))
        handle.write(Data(repeating: byte, count: count))
        try handle.close()
    }

    /// Changes the file with Python's own SQLite, as damage would (values no ridegate writes).
    func damage(_ file: String, statements: [String]) async throws {
        _ = try await PythonSQLite.run("c = sqlite3.connect(sys.argv[1])\nfor s in sys.argv[2:]: c.execute(s)\nc.commit()", [file] + statements)
    }

    @Test("Corrupt pages: the file is kept aside, readable readings salvaged with their ids, the rest counted, seq kept, said loudly")
    func corruptPages() throws {
        let dir = directory()
        let file = dir + "/spool.sqlite"
        try writeSpool(file, count: 300)
        // Pages 10 to 12 of 4096 bytes: leaves of the spool table, in the middle of the readings (the first
        // pages hold the schema and the small tables).
        try overwrite(file, at: 9 * 4096, count: 3 * 4096, with: 0x5A)
        let log = CapturingLogHandler()
        let spool = ResilientSpool(path: file, maximumBytes: 200 * 1024 * 1024, logger: log.logger())
        #expect(spool.recoveries == 1)
        #expect(FileManager.default.fileExists(atPath: dir + "/spool.sqlite.damaged-1"))
        #expect(log.lines.contains { $0.contains("the spool was damaged") && $0.contains("spool.salvaged=") }, "\(log.lines)")
        let pending = try spool.pending(after: 0, limit: 1000)
        #expect(pending.count > 100 && pending.count < 300, "salvaged \(pending.count)")
        // Every salvaged reading is the one written with that id, in order; nothing invented.
        #expect(pending.allSatisfy { $0.payload == payload(Int($0.id)) })
        #expect(zip(pending, pending.dropFirst()).allSatisfy { $0.id < $1.id })
        // Nothing lost silently: what could not be read is counted.
        #expect(Int64(pending.count) + spool.dropped == 300, "salvaged \(pending.count) (\(pending.first?.id ?? 0)…\(pending.last?.id ?? 0)), dropped \(spool.dropped)")
        // seq continues above the file's bound for it (300 given, the bound raised at 201 to 301: whether the file was
        // closed in order is not trusted), and new readings come after every old id.
        #expect(spool.sequences()["heart_rate"] == 301)
        #expect(try spool.append(topic: "heart_rate", payload: payload(302), qos: 1, sequence: 302) > 300)
        #expect(spool.mode == "disk")
    }

    @Test("Pages damaged after the spool was opened and checked: the backlog's read meets them, the file is salvaged, and the replay goes on with what was saved instead of ending at the damage")
    func pagesDamagedWhileOpen() throws {
        let dir = directory()
        let file = dir + "/spool.sqlite"
        // About 700 KiB of readings: more than the 256 KiB page cache, so the check at open leaves the early
        // pages to be read from the file again.
        try writeSpool(file, count: 3000)
        let spool = ResilientSpool(path: file, maximumBytes: 200 * 1024 * 1024, logger: CapturingLogHandler().logger())
        #expect(spool.recoveries == 0)
        try overwrite(file, at: 200 * 1024, count: 8 * 1024, with: 0x5A)
        let pending = try spool.pending(after: 0, limit: 5000)
        #expect(spool.recoveries == 1)
        #expect(pending.allSatisfy { $0.payload == payload(Int($0.id)) })
        // Readings from both sides of the damage: the read did not stop at it.
        #expect(pending.last?.id == 3000, "read up to \(pending.last?.id ?? 0)")
        #expect(Int64(pending.count) + spool.dropped == 3000, "read \(pending.count), dropped \(spool.dropped)")
    }

    @Test("The newest readings' pages destroyed: only the file's record of its highest id tells how many were lost; they are counted")
    func newestPagesDestroyed() throws {
        let dir = directory()
        let file = dir + "/spool.sqlite"
        try writeSpool(file, count: 300)
        let size = try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        try overwrite(file, at: size - 3 * 1024, count: 3 * 1024, with: 0x5A) // the last three 1 KiB pages
        let spool = ResilientSpool(path: file, maximumBytes: 200 * 1024 * 1024, logger: CapturingLogHandler().logger())
        #expect(spool.recoveries == 1)
        let pending = try spool.pending(after: 0, limit: 1000)
        #expect(pending.count < 300 && (pending.last?.id ?? 0) < 300, "the newest were destroyed: salvaged up to \(pending.last?.id ?? 0)")
        #expect(Int64(pending.count) + spool.dropped == 300, "salvaged \(pending.count), dropped \(spool.dropped)")
        #expect(try spool.append(topic: "heart_rate", payload: payload(301), qos: 1, sequence: 301) > 300)
    }

    @Test("A spool whose numbers are damaged (the highest id and the counters at Int64's limits): kept aside and salvaged, no crash, no overflow; new ids follow the readings")
    func implausibleNumbers() async throws {
        let dir = directory()
        let file = dir + "/spool.sqlite"
        try writeSpool(file, count: 20)
        try await damage(file, statements: [
            "UPDATE sequence SET value = 9223372036854775807 WHERE topic = ''",
            "INSERT OR REPLACE INTO counters VALUES ('low_water', -9223372036854775808)",
            "INSERT OR REPLACE INTO counters VALUES ('dropped', 9223372036854775807)",
        ])
        let log = CapturingLogHandler()
        let spool = ResilientSpool(path: file, maximumBytes: 200 * 1024 * 1024, logger: log.logger())
        #expect(spool.recoveries == 1 && spool.mode == "disk")
        #expect(log.lines.contains { $0.contains("the spool was damaged") && $0.contains("not one ridegate gave out") }, "\(log.lines)")
        let pending = try spool.pending(after: 0, limit: 100)
        #expect(pending.map(\.id) == Array(1...20))
        #expect(pending.allSatisfy { $0.payload == payload(Int($0.id)) })
        #expect(spool.dropped == 0)
        #expect(try spool.append(topic: "heart_rate", payload: payload(21), qos: 1, sequence: 21) == 21)
    }

    @Test("A salvage that meets a reading id beyond anything given out stops there, keeps what came before, and closes the file")
    func salvageStopsAtADamagedKey() async throws {
        let file = directory() + "/spool.sqlite"
        try writeSpool(file, count: 5)
        try await damage(file, statements: ["INSERT INTO spool (id, topic, payload, qos) VALUES (4611686018427387909, 'gps', '{}', 1)"])
        func descriptorsOnTheFile() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == file }.count
        }
        let salvage = SpoolSalvage.read(path: file)
        #expect(salvage.entries.map(\.id) == [1, 2, 3, 4, 5])
        #expect(descriptorsOnTheFile() == 0, "the damaged file is closed after the salvage")
    }

    @Test("A destroyed header: kept aside, a new spool, and seq carried over from what remains readable (nothing here)")
    func destroyedHeader() throws {
        let dir = directory()
        let file = dir + "/spool.sqlite"
        try writeSpool(file, count: 20)
        try overwrite(file, at: 0, count: 100, with: 0x00)
        let log = CapturingLogHandler()
        let spool = ResilientSpool(path: file, maximumBytes: 200 * 1024 * 1024, logger: log.logger())
        #expect(spool.recoveries == 1 && spool.mode == "disk")
        #expect(log.lines.contains { $0.contains("the spool was damaged") && $0.contains("seq restarts at 1") })
        #expect(try spool.pending(after: 0, limit: 100).isEmpty)
        #expect(try spool.append(topic: "gps", payload: "{}", qos: 1, sequence: 1) >= 1)
    }

    @Test("A spool another ridegate holds (same state directory): readings wait in memory, one line says why, the holder's file is untouched")
    func spoolHeldByAnother() throws {
        let file = directory() + "/spool.sqlite"
        let holder = try SQLiteSpool(path: file)
        try holder.append(topic: "gps", payload: "{}", qos: 1, sequence: 1)
        let log = CapturingLogHandler()
        let start = ContinuousClock.now
        let second = ResilientSpool(path: file, maximumBytes: 200 * 1024 * 1024, logger: log.logger())
        #expect(ContinuousClock.now - start < .seconds(1), "no waiting on a lock nobody will give up")
        #expect(second.mode == "memory" && second.recoveries == 0)
        #expect(log.lines.filter { $0.contains("the spool cannot be written") && $0.contains("another ridegate with the same state_directory") }.count == 1)
        #expect(try second.append(topic: "gps", payload: "{}", qos: 1, sequence: 1) >= 1)
        #expect(try holder.pending(after: 0, limit: 10).count == 1)
        #expect(!FileManager.default.fileExists(atPath: file + ".damaged-1"))
        holder.close()
    }

    @Test("Readings held in memory and delivered before the file comes back keep their ids: the file's next reading follows them")
    func idsGivenOutInMemoryStayGivenOut() throws {
        let file = directory() + "/spool.sqlite"
        let holder = try SQLiteSpool(path: file)
        let clock = Observed<Double>(0)
        let spool = ResilientSpool(path: file, maximumBytes: 200 * 1024 * 1024, retryInterval: 5, logger: CapturingLogHandler().logger(),
                                   now: { clock.current })
        #expect(spool.mode == "memory")
        let inMemory = try spool.append((1...3).map { NewReading(topic: "gps", payload: payload($0), qos: 1, sequence: $0) })
        try spool.remove(inMemory) // delivered from memory
        holder.close()
        clock.update { $0 = 10 }
        let next = try spool.append(topic: "gps", payload: payload(4), qos: 1, sequence: 4)
        #expect(spool.mode == "disk")
        #expect(next > (inMemory.max() ?? 0), "ids \(inMemory) were given out in memory; the file gave \(next)")
    }

    @Test("A full disk: readings wait in memory (the newest, the rest counted), one line each way, back to disk in order when space returns")
    func diskFull() throws {
        let mountPoint = directory()
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=320k") == 0 else {
            // Only root can mount; CI runs as root. Say so rather than pass quietly.
            Issue.record("cannot mount a tmpfs (\(String(cString: strerror(errno)))): run the suite as root to test a full disk")
            return
        }
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        var pendingIDs: [Int64] = []
        var dropped: Int64 = 0
        do {
            let clock = Observed<Double>(0)
            let log = CapturingLogHandler()
            let spool = ResilientSpool(path: mountPoint + "/spool.sqlite", maximumBytes: 200 * 1024 * 1024, memoryLimit: 100,
                                       retryInterval: 5, logger: log.logger(), now: { clock.current })
            // Fill the filesystem to the last byte.
            let filler = mountPoint + "/filler"
            // Close-on-exec: a child another test spawns meanwhile (a broker, a daemon) would otherwise keep the
            // filler open, and its space would not come back when it is removed.
            let fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            let block = [UInt8](repeating: 1, count: 4096)
            while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
            close(fd)
            var ids: [Int64] = []
            for seq in 1...400 { ids.append(try spool.append(topic: "heart_rate", payload: payload(seq), qos: 1, sequence: seq)) }
            #expect(spool.mode == "memory")
            #expect(log.lines.filter { $0.contains("the spool cannot be written") }.count == 1)
            #expect(log.lines.contains { $0.contains("the disk is full") })
            #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }) // one id sequence across disk and memory
            // Space returns; the next reading after the retry interval moves the waiting ones to disk.
            unlink(filler)
            clock.update { $0 = 10 }
            ids.append(try spool.append(topic: "heart_rate", payload: payload(401), qos: 1, sequence: 401))
            #expect(spool.mode == "disk")
            #expect(log.lines.filter { $0.contains("the spool can be written again") }.count == 1)
            let pending = try spool.pending(after: 0, limit: 1000)
            // Every reading is pending or counted, and what is pending is in order, the newest kept.
            #expect(Int64(pending.count) + spool.dropped == 401, "pending \(pending.count), dropped \(spool.dropped)")
            #expect(spool.dropped > 0)
            #expect(zip(pending, pending.dropFirst()).allSatisfy { $0.id < $1.id })
            #expect(pending.last?.payload == payload(401))
            #expect(spool.sequences()["heart_rate"] == 401)
            pendingIDs = pending.map(\.id)
            dropped = spool.dropped
        } // the spool is closed here (while open, the file is its alone)
        // And it survived on disk: reopened, the same.
        let reopened = try SQLiteSpool(path: mountPoint + "/spool.sqlite")
        #expect(try reopened.pending(after: 0, limit: 1000).map(\.id) == pendingIDs)
        #expect(reopened.dropped == dropped)
        reopened.close()
    }
}
