import Foundation
import RidegateTestSupport
import Testing

/// The ride log through the built binary: the demo records its ride like the daemon, `rides list` shows it,
/// and the GPX it exports is read back by an independent reader (gpxpy, Debian's python3-gpxpy).
@Suite struct RideFilesTests {
    static let python = "/usr/bin/python3" // Debian's, with python3-gpxpy (scripts/lib.sh installs it)

    /// A file's records against the ride log's points: one a second, so the same count, or a few fewer where the
    /// log has two points in a second (a point from the sensors while a fix was a moment late, on a busy machine).
    static func oneASecond(_ records: Int?, of points: Int) -> Bool {
        guard let records else { return false }
        return records <= points && records >= points - max(2, points / 100)
    }

    func run(_ arguments: [String]) async throws -> (status: Int32?, output: [String]) {
        let process = try ChildProcess(RepositoryPaths.executable, arguments, captureOutput: true)
        let status = await process.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode)
        return (status, await process.waitForAllOutput(timeout: 5))
    }

    @Test("The export formats are the enum's: a name outside it is refused with the list (exit 64), never exported as another")
    func unknownFormat() async throws {
        let (kml, refusal) = try await run(["rides", "export", "latest", "--format", "kml", "--state-directory", "/nonexistent"])
        #expect(kml == 64 && refusal.contains { $0.contains("Please provide one of 'fit', 'gpx' or 'tcx'") }, "\(refusal)")
    }

    @Test("The demo's ride is in the ride log; its GPX reads back in gpxpy with the same distance (±2 %), heart rate, cadence and power; TCX in python-tcxparser; GPX, TCX and FIT in gpsbabel; FIT in Garmin's FIT SDK")
    func demoRideToGPX() async throws {
        let broker = try await MosquittoBroker.start()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rg-ride-\(UUID().uuidString)").path
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "60", "--state-directory", state], captureOutput: true)
        #expect(await demo.waitForRideTime(6 * 60), "\(demo.lines.suffix(3))") // some ten minutes of the ride at 60×
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        // It ends with the ride in a line a person reads, and how to get its file.
        let demoOutput = await demo.waitForAllOutput(timeout: 5)
        // (No place in the name: the demo starts in a privacy zone of its own.)
        #expect(demoOutput.contains { $0.hasPrefix("ride: Morning ride 2026-06-21: ") && $0.contains(" km in ") && $0.contains("heart rate") },
                "\(demoOutput.suffix(3))")
        #expect(demoOutput.contains { $0 == "ride file: ridegate rides export latest --format fit --state-directory \(state) -o ride.fit" })
        // While it rides: a live line every few seconds, the ride growing in it.
        let live = demoOutput.filter { $0.hasPrefix("riding: ") }
        #expect(live.count >= 2, "\(demoOutput.prefix(5))")
        #expect(live.last.map { $0.range(of: #"^riding: \d:\d\d:\d\d · \d+(\.\d+)? km · \d+\.\d km/h · \d+ bpm zone \d"#, options: .regularExpression) != nil } == true,
                "\(live.suffix(2))")

        let (listed, lines) = try await run(["rides", "list", "--state-directory", state, "--json"])
        #expect(listed == 0)
        let rides = try #require(try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8)) as? [[String: Any]])
        #expect(rides.count == 1)
        let ride = try #require(rides.first)
        for key in ["id", "start", "end", "distance_m", "moving_time_s", "elapsed_time_s", "points", "exported"] {
            #expect(ride[key] != nil, "rides list --json lacks \(key)")
        }
        // Dated as recorded (16:00:00), not now: within a few seconds, as the strap's first points (held until the
        // first fix dates them) can come before the receiver's first epoch on a busy machine at 60×.
        let start = (ride["start"] as? String).flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") }
        let recordedStart = try #require(ISO8601DateFormatter().date(from: "2026-06-21T16:00:00Z"))
        #expect(start.map { abs($0.timeIntervalSince(recordedStart)) <= 5 } == true, "ride start \(ride["start"] ?? "none")")
        let distance = try #require(ride["distance_m"] as? Double)
        let points = try #require(ride["points"] as? Int)
        #expect(distance > 1000 && points > 300, "\(ride)")
        #expect((ride["exported"] as? [String]) == [])

        // Valid against the schemas: RideFileSchemaTests (they are in the reference corpus). Here: each file read
        // back by readers that are not ridegate's, with what was recorded.
        let sensorLog = demoOutput.filter { ["sensor", "strap", "power", "connect"].contains(where: $0.contains) && !$0.hasPrefix("riding: ") }
        let recorded = Recorded(state: state, points: points, distance: distance, sensorLog: Array(sensorLog.prefix(12)))
        let gpx = try await export("gpx", recorded)
        try await expectGPXReadsBack(gpx, recorded)
        let tcx = try await export("tcx", recorded)
        try await expectTCXReadsBack(tcx, recorded)
        let fit = try await export("fit", recorded)
        try await expectFITSDKReadsBack(fit, tcx: tcx, recorded)
        for (format, file) in [("gtrnctr", tcx), ("gpx", gpx), ("garmin_fit", fit)] { try await expectGPSBabelReadsBack(format, file, recorded) }
        let (_, again) = try await run(["rides", "list", "--state-directory", state, "--json"])
        // The demo's ride may still go on (a restart within new_ride_after_min continues it): files of it are not the
        // whole ride, so it is not marked exported, and the size limit does not take it for a ride safely elsewhere.
        #expect(again.joined().contains(#""exported":[]"#), "\(again)")

        // Mistakes say what to do, with sysexits codes.
        let (unknown, said) = try await run(["rides", "export", "99", "--state-directory", state])
        #expect(unknown == 65 && said.contains { $0.contains("no ride 99") })
        let (nothing, _) = try await run(["rides", "list", "--state-directory", state + "-missing"])
        #expect(nothing == 69)
    }

    /// glibc's malloc arenas for threads other than the first: each is 64 MiB of address space, all but its
    /// used start inaccessible (a thread stack's guard, the only other such mapping, is a page or two).
    func threadArenas(of pid: pid_t) throws -> Int {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        return maps.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 5, fields[1] == "---p" else { return false }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            return bounds.count == 2 && bounds[1] - bounds[0] > 1 << 20
        }.count
    }

    @Test("SIGKILL mid-ride: the ride log keeps everything up to the last batch (5 s of GPS time) before the kill")
    func killedMidRide() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/+/gps")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rg-kill-\(UUID().uuidString)").path
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "10", "--state-directory", state], captureOutput: true)
        // Until at least a minute of the ride is out on MQTT, then no orderly stop at all.
        let seen = await sub.wait(timeout: TestTime.seconds(30)) { $0.count >= 60 }
        #expect(seen.count >= 60)
        // The ride log's writer thread came and went with each batch and left no malloc arena of its own.
        #expect(try threadArenas(of: demo.pid) == 0)
        demo.signal(SIGKILL)
        _ = await demo.waitForExit(timeout: TestTime.seconds(5))
        let published = sub.messages.compactMap { $0.json["ts"] as? String }.max() ?? ""
        let (status, lines) = try await run(["rides", "list", "--state-directory", state, "--json"])
        #expect(status == 0)
        let rides = try #require(try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8)) as? [[String: Any]])
        let end = try #require(rides.first?["end"] as? String)
        // Both are ISO 8601 UTC with milliseconds on the same day: compare the seconds of the day.
        func secondsOfDay(_ ts: String) -> Double {
            let time = ts.split(separator: "T").last.map(String.init) ?? ""
            let parts = time.dropLast().split(separator: ":").compactMap { Double($0) }
            return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : 0
        }
        let lost = secondsOfDay(published) - secondsOfDay(end)
        // One batch (5 s of GPS time) may be lost, plus the fixes between the last MQTT message read and the kill.
        #expect(lost <= 5 + 1, "last point \(end), last fix published \(published): \(lost) s lost")
        #expect((rides.first?["points"] as? Int ?? 0) >= 50)
    }

    @Test("Automatic export: each finished ride is written into ride.export_directory as FIT and GPX, named by its start, and announced on the retained rides/last")
    func automaticExport() async throws {
        let broker = try await MosquittoBroker.start()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-export-\(UUID().uuidString)").path
        let exports = dir + "/usb"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        let config = dir + "/ridegate.toml"
        try "[ride]\nexport_directory = \"\(exports)\"\nexport_formats = [\"fit\", \"gpx\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--keep-retained", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "60", "--state-directory", dir + "/state",
                                     "--config", config, "--device-id", "auto"], captureOutput: true)
        await demo.waitForRideStart()
        try await TestTime.pause(4)
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: exports).sorted()
        // Named by the ride's start: the recording's 16:00, or the second before it when the strap's first reading
        // came before the GPS's first fix (it is part of the ride).
        let start = files.first.map { String($0.dropFirst(11).prefix(4)) } ?? "-"
        #expect(["1559", "1600"].contains(start) && files == ["fit", "gpx"].map { "2026-06-21-\(start)-ride-1.\($0)" }, "\(files)")
        let last = try #require(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/auto/rides/last").first).json
        #expect(last["id"] as? Int == 1 && (last["name"] as? String)?.hasPrefix("Morning ride 2026-06-21") == true, "\(last)")
        #expect(last["files"] as? [String] == files.map { exports + "/" + $0 })
        let (_, listed) = try await run(["rides", "list", "--state-directory", dir + "/state", "--json"])
        #expect(listed.joined().contains(#""exported":[]"#)) // written at the stop, but the ride may go on
        // A directory that is not there (the stick is out): said once, the ride stays in the log, the demo exits 0.
        try "[ride]\nexport_directory = \"/nonexistent/usb\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let missing = try ChildProcess(RepositoryPaths.executable,
                                       ["demo", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "60", "--state-directory", dir + "/state2",
                                        "--config", config], captureOutput: true)
        await missing.waitForRideStart()
        try await TestTime.pause(3)
        missing.signal(SIGTERM)
        #expect(await missing.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let log = await missing.waitForAllOutput(timeout: 5)
        #expect(log.filter { $0.contains("cannot write the ride's files") && $0.contains("/nonexistent/usb") }.count == 1, "\(log.suffix(8))")
    }
}
