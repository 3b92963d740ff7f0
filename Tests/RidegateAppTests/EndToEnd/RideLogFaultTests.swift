import Foundation
import Glibc
import RidegateTestSupport
import Testing

/// The ride log's faults through the built binary: a damaged file (the commands refuse it with exit 65 and what to
/// do; the gateway sets it aside and salvages it), a file another process holds at start (the ride waits in
/// memory and is written once it can be), a read-only state directory (listed and exported all the same).
@Suite struct RideLogFaultTests {
    func run(_ arguments: [String], asNobody: Bool = false) async throws -> (status: Int32?, output: [String]) {
        // As root, permissions are no obstacle: the read-only case runs as nobody (setpriv, util-linux).
        let (executable, prefix) = asNobody && getuid() == 0
            ? ("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", RepositoryPaths.executable])
            : (RepositoryPaths.executable, [])
        let process = try ChildProcess(executable, prefix + arguments, captureOutput: true)
        let status = await process.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode)
        return (status, await process.waitForAllOutput(timeout: 5))
    }

    func stateDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("rg-ridelog-\(UUID().uuidString)").path
    }

    /// The demo's ride for `seconds` from its start (at 60x: a minute of riding a second), stopped with SIGTERM.
    /// `atLeast`: ride seconds the demo must have ridden too before it is stopped (a loaded machine rides slower).
    func ride(_ state: String, seconds: Double, atLeast rideSeconds: Int = 0, broker: MosquittoBroker) async throws -> [String] {
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--keep-retained", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "60", "--state-directory", state,
                                     "--device-id", "faults"], captureOutput: true)
        await demo.waitForRideStart()
        try await TestTime.pause(seconds)
        if rideSeconds > 0 { #expect(await demo.waitForRideTime(rideSeconds), "\(demo.lines.suffix(3))") }
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(15)).flatMap(ChildProcess.exitCode) == 0)
        return await demo.waitForAllOutput(timeout: 5)
    }

    func rides(_ state: String) async throws -> [[String: Any]] {
        let (status, lines) = try await run(["rides", "list", "--state-directory", state, "--json"])
        #expect(status == 0, "\(lines)")
        return try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8)) as? [[String: Any]] ?? []
    }

    /// Overwrites the middle leaf page of the points table (found with SQLite's dbstat, read-only).
    func damagePoints(_ file: String) async throws {
        let found = try await PythonSQLite.run("""
            c = sqlite3.connect(sys.argv[1])
            size = c.execute("PRAGMA page_size").fetchone()[0]
            pages = [p for (p,) in c.execute("SELECT pageno FROM dbstat WHERE name = 'points' AND pagetype = 'leaf' ORDER BY pageno")]
            print(size, pages[len(pages) // 2])
            """, [file]).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(found.count == 2)
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.seek(toOffset: UInt64((found[1] - 1) * found[0]))
        handle.write(Data(repeating: 0x5A, count: found[0]))
        try handle.close()
    }

    @Test("Damaged pages: rides list and export refuse with exit 65 and what to do, writing nothing; the gateway then keeps the file aside, saves what it can read, counts it on health, and records on")
    func damagedRideLog() async throws {
        let broker = try await MosquittoBroker.start()
        let state = stateDirectory()
        _ = try await ride(state, seconds: 8, broker: broker)
        let before = try await rides(state)
        let points = try #require(before.first?["points"] as? Int)
        try await damagePoints(state + "/rides.sqlite")

        let (listed, said) = try await run(["rides", "list", "--state-directory", state])
        #expect(listed == 65 && said.contains { $0.contains("the ride log is damaged") && $0.contains("systemctl restart ridegate") }, "\(said)")
        let file = state + "/ride.fit"
        let (exported, _) = try await run(["rides", "export", "latest", "--format", "fit", "--state-directory", state, "-o", file])
        #expect(exported == 65 && !FileManager.default.fileExists(atPath: file))

        let output = try await ride(state, seconds: 4, broker: broker)
        #expect(output.contains { $0.contains("the ride log was damaged") && $0.contains("ride_log.kept_as=\(state)/rides.sqlite.damaged-1") }, "\(output)")
        #expect(FileManager.default.fileExists(atPath: state + "/rides.sqlite.damaged-1"))
        let health = try #require(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/faults/health").first).json
        #expect(health["ride_log_recoveries"] as? Int == 1 && health["ride_log"] as? String == "disk", "\(health)")
        // What could be read is there, in the same ride (the demo rode it again from its start: one ride).
        let after = try await rides(state)
        let kept = after.compactMap { $0["points"] as? Int }.reduce(0, +)
        #expect(!after.isEmpty && kept > points / 2, "\(after)")
    }

    @Test("Held by another process at start: the ride waits in memory, the log says so, and all of it is written once the lock goes")
    func lockedAtStart() async throws {
        let broker = try await MosquittoBroker.start()
        let state = stateDirectory()
        _ = try await ride(state, seconds: 3, broker: broker)
        let first = try #require(try await rides(state).last)
        // Another process takes the file's lock and keeps it for 10 s: the gateway tries at its start and 5 s later,
        // each time waiting out SQLite's 2 s busy timeout, then backs off 10 s, past its stop at 11 s; the stop tries
        // once more whatever the backoff says.
        let holder = try ChildProcess("/usr/bin/python3", ["-c", """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA locking_mode=EXCLUSIVE"); c.execute("BEGIN EXCLUSIVE"); c.execute("UPDATE rides SET name = name"); c.execute("COMMIT")
            print("locked", flush=True); time.sleep(10)
            """, state + "/rides.sqlite"], captureOutput: true)
        #expect(await holder.waitForOutput(timeout: TestTime.seconds(10)) { $0.contains("locked") }.contains("locked"))
        // At least 11 s (past the lock's 10) and 150 ride seconds past the first run's end, however loaded the machine.
        let output = try await ride(state, seconds: 11, atLeast: Int(first["elapsed_time_s"] as? Double ?? 0) + 150, broker: broker)
        _ = await holder.waitForExit(timeout: TestTime.seconds(10))
        #expect(output.contains { $0.contains("cannot open the ride log; the ride waits in memory") && $0.contains("database is locked") }, "\(output)")
        #expect(output.contains { $0.contains("the ride log can be written again") }, "\(output)")
        // The demo rode the recording again from its start: its seconds up to where the first run ended are that
        // run's (repeated epochs are not stored twice); every second after it, ridden while the file was locked,
        // is in the log now — in the same ride, or in a new one when this run's first point came before the first
        // ride's start (a loaded machine's first run can miss its first epochs; a point before a ride's start
        // begins a new ride).
        let all = try await rides(state)
        let firstEnd = try #require(instant(first["end"]), "\(first)")
        let lastEnd = try #require(all.compactMap { instant($0["end"]) }.max(), "\(all)")
        let added = all.compactMap { $0["points"] as? Int }.reduce(0, +) - (first["points"] as? Int ?? 0)
        let longer = lastEnd - firstEnd
        // Ridden at 60× for 11 s while the lock was held for 10, and at least 150 s past the first run: more than 100 s
        // shows seconds ridden behind the lock.
        #expect(longer > 100, "\(first)\n\(all)\n\(output.suffix(12))")
        #expect(Double(added) > longer * 0.95, "\(first)\n\(all)")
    }

    private func instant(_ value: Any?) -> Double? {
        guard let text = value as? String else { return nil }
        let plain = ISO8601DateFormatter(), fractional = ISO8601DateFormatter()
        fractional.formatOptions.insert(.withFractionalSeconds)
        return (plain.date(from: text) ?? fractional.date(from: text))?.timeIntervalSince1970
    }

    @Test("A read-only state directory: rides list and export work, the export noted as not marked")
    func readOnlyStateDirectory() async throws {
        let broker = try await MosquittoBroker.start()
        let state = stateDirectory()
        _ = try await ride(state, seconds: 3, broker: broker)
        #expect(chmod(state, 0o555) == 0 && chmod(state + "/rides.sqlite", 0o444) == 0)
        defer { _ = chmod(state, 0o700) }
        let (listed, lines) = try await run(["rides", "list", "--state-directory", state], asNobody: true)
        #expect(listed == 0 && lines.contains { $0.contains("Morning ride 2026-06-21") }, "\(lines)")
        // Into a folder anyone may write (the state directory is not one).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rg-ro-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chmod(folder, 0o777) == 0)
        let out = folder + "/ride.gpx"
        let (exported, said) = try await run(["rides", "export", "latest", "--state-directory", state, "-o", out], asNobody: true)
        #expect(exported == 0 && said.contains { $0.contains("read-only") && $0.contains("not marked exported") }, "\(said)")
        #expect(((try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0) > 1000)
    }

    @Test("A read-only folder whose ride log still has writes in its WAL (a power cut): refused with what to do, never a shorter ride")
    func readOnlyWithWritesInTheWAL() async throws {
        let broker = try await MosquittoBroker.start()
        let state = stateDirectory()
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--keep-retained", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "60",
                                     "--state-directory", state, "--device-id", "walcut"], captureOutput: true)
        #expect(await demo.waitForRideTime(60), "\(demo.lines.suffix(3))")
        demo.signal(SIGKILL) // the cut: no close, the WAL stays
        _ = await demo.waitForExit(timeout: TestTime.seconds(10))
        #expect(((try? FileManager.default.attributesOfItem(atPath: state + "/rides.sqlite-wal")[.size] as? Int) ?? 0) > 0, "no WAL left")
        #expect(chmod(state, 0o555) == 0 && chmod(state + "/rides.sqlite", 0o444) == 0)
        defer { _ = chmod(state, 0o700) }
        let (listed, lines) = try await run(["rides", "list", "--state-directory", state], asNobody: true)
        #expect(listed == 69 && lines.contains { $0.contains("rides.sqlite-wal") && $0.contains("copy the folder somewhere writable") }, "\(lines)")
    }

    @Test("A state partition mounted read-only: the log says the ride is in memory only, health and the LED say so, the ride goes on",
          .enabled(if: getuid() == 0, "needs root to mount a file system"))
    func readOnlyStatePartition() async throws {
        let broker = try await MosquittoBroker.start()
        let state = stateDirectory()
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: state) }
        #expect(mount("tmpfs", state, "tmpfs", UInt(MS_RDONLY), "size=1m") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(state, Int32(MNT_DETACH)) }
        let subscriber = try MQTTSubscriber(port: broker.port, topic: "ridegate/readonly/health")
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "60", "--state-directory", state,
                                     "--device-id", "readonly"], captureOutput: true)
        await demo.waitForRideStart()
        let health = await subscriber.wait(timeout: TestTime.seconds(15)) {
            $0.contains { $0.json["state_storage"] as? String == "read_only" && $0.json["ride_log"] as? String == "memory" }
        }
        #expect(health.contains { $0.json["state_storage"] as? String == "read_only" && $0.json["spool_mode"] as? String == "memory" }, "\(health)")
        try await TestTime.pause(2)
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(15)).flatMap(ChildProcess.exitCode) == 0)
        let output = await demo.waitForAllOutput(timeout: 5)
        #expect(output.filter { $0.contains("read-only file system") && $0.contains("kept in memory only") }.count == 1, "\(output.suffix(20))")
        #expect(output.contains { $0.contains("led.signal=\"state partition read-only\"") || $0.contains("led.signal=state partition read-only") }, "\(output.filter { $0.contains("LED") })")
    }
}
