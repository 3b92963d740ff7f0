import Foundation
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// Uploads through the built binary to local HTTPS sites that answer as intervals.icu and Strava document
/// (Tests/Servers/training_sites.py): the demo's rides reach each site once, whatever comes between.
@Suite(.serialized) struct UploadTests {
    struct Rig {
        let dir: String
        let certificates: TestCertificates
        let intervals: TrainingSite
        let strava: TrainingSite
        let config: String
        var state: String { dir + "/state" }

        static func make(stravaArguments: [String] = []) async throws -> Rig {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-upload-\(UUID().uuidString)").path
            let certificates = try await TestCertificates.make(in: dir + "/tls")
            let intervals = try TrainingSite(.intervalsICU, certificates: certificates, directory: dir + "/intervals",
                                             arguments: ["--api-key", "KEY-1", "--athlete", "i42"])
            let strava = try TrainingSite(.strava, certificates: certificates, directory: dir + "/strava",
                                          arguments: ["--client-id", "12345", "--client-secret", "SECRET-1", "--code", "GOOD1"] + stravaArguments)
            for (file, secret) in [("intervals.key", "KEY-1"), ("strava.secret", "SECRET-1")] {
                try "\(secret)\n".write(toFile: "\(dir)/\(file)", atomically: true, encoding: .utf8)
                chmod("\(dir)/\(file)", 0o600)
            }
            let config = dir + "/ridegate.toml"
            try """
                state_directory = "\(dir)/state"
                [upload.intervals_icu]
                api_key_file = "\(dir)/intervals.key"
                athlete_id = "i42"
                base_url = "\(intervals.baseURL)"
                ca_file = "\(certificates.caCertificate)"
                [upload.strava]
                token_file = "\(dir)/strava.token"
                client_id = "12345"
                client_secret_file = "\(dir)/strava.secret"
                base_url = "\(strava.baseURL)"
                ca_file = "\(certificates.caCertificate)"
                """.write(toFile: config, atomically: true, encoding: .utf8)
            return Rig(dir: dir, certificates: certificates, intervals: intervals, strava: strava, config: config)
        }

        func ridegate(_ arguments: [String]) async throws -> (status: Int32?, output: [String]) {
            let process = try ChildProcess(RepositoryPaths.executable, arguments, captureOutput: true)
            let status = await process.waitForExit(timeout: TestTime.seconds(60)).flatMap(ChildProcess.exitCode)
            return (status, await process.waitForAllOutput(timeout: 5))
        }

        func demo(broker: MosquittoBroker, start: String) throws -> ChildProcess {
            try ChildProcess(RepositoryPaths.executable,
                             ["demo", "--config", config, "--broker", "127.0.0.1:\(broker.port)", "--speed", "100", "--start", start,
                              "--state-directory", state, "--keep-retained"], captureOutput: true)
        }

        func status() async throws -> [[String: Any]] {
            let (code, lines) = try await ridegate(["upload", "status", "--config", config, "--json"])
            #expect(code == 0, "\(lines)")
            return try #require(try JSONSerialization.jsonObject(with: Data(lines.joined().utf8)) as? [[String: Any]])
        }
    }

    @Test("A demo ride reaches intervals.icu and Strava exactly once: the network appears after the ride, the gateway is killed mid-upload, Strava's token has expired and the connection drops after Strava kept the file")
    func demoRideReachesEachSiteOnce() async throws {
        let broker = try await MosquittoBroker.start()
        // Strava hands out tokens that expire within the minute ridegate keeps to spare: each use refreshes first.
        let rig = try await Rig.make(stravaArguments: ["--expires-in", "30"])
        try await rig.strava.start()
        let (authorized, said) = try await rig.ridegate(["upload", "strava-authorize", "--config", rig.config,
                                                         "--code", "http://localhost/exchange_token?state=&code=GOOD1&scope=read,activity:write"])
        #expect(authorized == 0 && said.contains { $0.hasPrefix("Strava authorized (athlete 1)") }, "\(said)")
        let firstToken = try String(contentsOfFile: rig.dir + "/strava.token", encoding: .utf8)
        await rig.strava.stop()

        // The first ride ends with no network: its uploads wait. The sites come up; intervals.icu keeps the file
        // and holds its answer, and the gateway dies then.
        let first = try rig.demo(broker: broker, start: "2026-06-21T08:00:00Z")
        let offline = await first.waitForOutput(timeout: TestTime.seconds(90)) { $0.contains { $0.contains("the ride's upload did not go through") } }
        #expect(offline.contains { $0.contains("cannot reach intervals.icu") }, "\(offline.suffix(5))")
        try rig.intervals.queueFaults(["upload": ["hold:60"]])
        try rig.strava.queueFaults(["upload": ["expired", "drop"]])
        try await rig.intervals.start()
        try await rig.strava.start()
        try await rig.intervals.waitFor(timeout: 60, "the held upload") { $0.events.contains { $0["event"] as? String == "holding" } }
        first.signal(SIGKILL)
        _ = await first.waitForExit(timeout: TestTime.seconds(10))
        #expect(rig.intervals.activities.count == 1)

        // The next start sends it again (a duplicate: done, as the first activity), then rides and uploads its own.
        let second = try rig.demo(broker: broker, start: "2026-06-21T12:00:00Z")
        #expect(await second.waitForExit(timeout: TestTime.seconds(120)).flatMap(ChildProcess.exitCode) == 0)
        let output = await second.waitForAllOutput(timeout: 5)
        #expect(output.contains { $0.hasPrefix("upload: intervals.icu done (\(rig.intervals.baseURL)/activities/i1002)") },
                "\(output.filter { !$0.hasPrefix("riding") }.suffix(30))")
        #expect(output.contains { $0.hasPrefix("upload: Strava done (\(rig.strava.baseURL)/activities/") }, "\(output.suffix(4))")

        let jobs = try await rig.status()
        #expect(jobs.count == 4 && jobs.allSatisfy { $0["state"] as? String == "done" }, "\(jobs)")
        let firstRide = jobs.filter { $0["ride"] as? Int == 1 }
        #expect(firstRide.first { $0["service"] as? String == "intervals_icu" }?["activity_url"] as? String == "\(rig.intervals.baseURL)/activities/i1001")
        #expect(firstRide.first { $0["service"] as? String == "intervals_icu" }?["reason"] as? String == "the site already had this ride")
        #expect(firstRide.first { $0["service"] as? String == "strava" }?["activity_id"] as? String == "9001")
        // Each ride once at each site; the second sending of ride 1 recognised by its file; named and marked as the
        // ride (intervals.icu takes both as URL parameters, Strava as form fields).
        for site in [rig.intervals, rig.strava] {
            #expect(site.activities.count == 2, "\(site.service): \(site.activities)")
            #expect(Set(site.activities.compactMap { $0["sha256"] as? String }).count == 2)
            #expect(site.activities.allSatisfy { ($0["external_id"] as? String)?.hasPrefix("ridegate-") == true && $0["name"] is String },
                    "\(site.service): \(site.activities)")
        }
        // intervals.icu received three files: ride 1 held (no answer sent), ride 1 again (200: it had it), ride 2.
        #expect(rig.intervals.events.filter { $0["event"] as? String == "upload_received" }.count == 3)
        let intervalsPosts = rig.intervals.requests.filter { $0["method"] as? String == "POST" }
        #expect(intervalsPosts.map { $0["status"] as? Int } == [200, 201], "\(intervalsPosts)")
        let stravaFaults = rig.strava.requests.compactMap { $0["fault"] as? String }
        #expect(stravaFaults == ["expired", "drop"], "\(rig.strava.requests)")
        // Strava rotated the refresh token; the newest is kept, the owner's only.
        let lastToken = try String(contentsOfFile: rig.dir + "/strava.token", encoding: .utf8)
        #expect(lastToken != firstToken && lastToken.contains("\"refresh_token\":\"r"))
        #expect(((try FileManager.default.attributesOfItem(atPath: rig.dir + "/strava.token"))[.posixPermissions] as? Int) == 0o600)
        try await expectReceivedFilesAreTheRides(rig)
        try await expectRidesLastSaysDone(broker: broker, rig: rig)
    }

    @Test("A refused file fails once, said with what to do; `upload retry` and the daemon's next start send it; Strava's 429 is waited out and a 5xx retried; a key file others can read is refused by --check-config")
    func failuresAndRetry() async throws {
        let broker = try await MosquittoBroker.start()
        let rig = try await Rig.make()
        try await rig.intervals.start()
        try await rig.strava.start()
        _ = try await rig.ridegate(["upload", "strava-authorize", "--config", rig.config, "--code", "GOOD1"])
        try rig.intervals.queueFaults(["upload": ["refuse"]])
        try rig.strava.queueFaults(["upload": ["429", "503"], "poll": ["500"]])

        let demo = try rig.demo(broker: broker, start: "2026-06-21T08:00:00Z")
        #expect(await demo.waitForExit(timeout: TestTime.seconds(120)).flatMap(ChildProcess.exitCode) == 0)
        let output = await demo.waitForAllOutput(timeout: 5)
        let failed = output.filter { $0.contains("the ride's upload failed; after fixing it, run: ridegate upload retry 1") }
        #expect(failed.count == 1 && failed.first?.contains("refused the file (HTTP 422: Unable to parse activity file)") == true, "\(output.filter { !$0.hasPrefix("riding") }.suffix(30))")
        #expect(output.contains { $0.contains("Strava's rate limit is reached (HTTP 429)") && $0.contains("upload.next_attempt=") })
        #expect(output.contains { $0.hasPrefix("upload: intervals.icu failed (intervals.icu refused the file") }, "\(output.suffix(4))")
        #expect(output.contains { $0.hasPrefix("upload: Strava done (") }, "\(output.suffix(4))")
        #expect(rig.intervals.activities.isEmpty && rig.strava.activities.count == 1)

        // The key file is checked as the MQTT password file is: others must not read it.
        let daemonConfig = rig.dir + "/daemon.toml"
        try (try String(contentsOfFile: rig.config, encoding: .utf8) + """

            [mqtt]
            host = "127.0.0.1"
            port = \(broker.port)
            [gps]
            enabled = false
            [heart_rate]
            enabled = false
            """).write(toFile: daemonConfig, atomically: true, encoding: .utf8)
        chmod(rig.dir + "/intervals.key", 0o640)
        let (refused, why) = try await rig.ridegate(["run", "--config", daemonConfig, "--check-config"])
        #expect(refused == 1 && why.contains { $0.contains("upload.intervals_icu.api_key_file") && $0.contains("chmod 600") }, "\(why)")
        chmod(rig.dir + "/intervals.key", 0o600)

        let (retried, queued) = try await rig.ridegate(["upload", "retry", "1", "--config", daemonConfig, "--service", "intervals_icu"])
        #expect(retried == 0 && queued == ["ride 1: intervals.icu queued"], "\(queued)")
        let (unknown, none) = try await rig.ridegate(["upload", "retry", "7", "--config", daemonConfig])
        #expect(unknown == 65 && none.contains { $0.contains("no finished ride 7") })
        let daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", daemonConfig], captureOutput: true)
        // Done once the daemon has written the site's answer (the site keeps the file a moment before it answers).
        let store = try SQLiteRideStore(path: rig.state + "/rides.sqlite", readOnly: true)
        let deadline = Date().addingTimeInterval(TestTime.seconds(60))
        while try store.uploads().contains(where: { $0.state != .done }), Date() < deadline { try await TestTime.pause(0.2) }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: TestTime.seconds(20)).flatMap(ChildProcess.exitCode) == 0)
        let jobs = try await rig.status()
        #expect(jobs.count == 2 && jobs.allSatisfy { $0["state"] as? String == "done" }, "\(jobs)")
        #expect(rig.intervals.activities.count == 1)
    }

    @Test("Authorizing Strava sends the rides that waited for it at once, not after their backoff; a code works once; an unticked upload scope is refused")
    func authorizationSendsWaitingRides() async throws {
        let rig = try await Rig.make()
        try FileManager.default.createDirectory(atPath: rig.state, withIntermediateDirectories: true)
        let store = try SQLiteRideStore(path: rig.state + "/rides.sqlite")
        try store.record(
            entries: (0..<30).map {
                .point(
                    RidePoint(
                        time: Timestamp(secondsSince1970: 1_782_057_600 + Double($0)), distance: Double($0) * 5,
                                                                 moving: true)) } + [.end(Timestamp(secondsSince1970: 1_782_057_630))])
        var waiting = UploadJob(ride: 1, service: .strava)
        waiting.attempts = 6
        waiting.nextAttempt = SystemClock.wallClock() + 3600
        waiting.detail = "Strava is not authorized yet"
        try store.update(waiting)
        try await rig.strava.start()
        // The athlete unticked the upload on Strava's consent page: the address says so, and the code is not spent.
        let (unticked, why) = try await rig.ridegate(["upload", "strava-authorize", "--config", rig.config,
                                                      "--code", "http://localhost/exchange_token?state=&code=GOOD1&scope=read"])
        #expect(unticked == 65 && why.contains { $0.contains("granted: read") && $0.contains("Upload your activities") }, "\(why)")
        #expect(!rig.strava.requests.contains { $0["path"] as? String == "/oauth/token" })
        let (status, said) = try await rig.ridegate(["upload", "strava-authorize", "--config", rig.config, "--code", "GOOD1"])
        #expect(status == 0 && said.contains("1 ride(s) waiting for Strava are sent within five minutes (at once after a restart)."), "\(said)")
        let job = try #require(try store.uploads().first)
        #expect(job.state == .queued && job.attempts == 0 && job.nextAttempt == nil && job.detail == nil)
        let (again, refused) = try await rig.ridegate(["upload", "strava-authorize", "--config", rig.config, "--code", "GOOD1"])
        #expect(again == 65 && refused.contains { $0.contains("each code works once") }, "\(refused)")
    }

    /// What each site received reads back in Garmin's FIT SDK with the ride's distance and time.
    func expectReceivedFilesAreTheRides(_ rig: Rig) async throws {
        let (_, lines) = try await rig.ridegate(["rides", "list", "--state-directory", rig.state, "--json"])
        let rides = try #require(try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8)) as? [[String: Any]])
        #expect(rides.count == 2)
        for site in [rig.intervals, rig.strava] {
            for (ride, activity) in zip(rides, site.activities) {
                let id = try #require(activity["id"].map { "\($0)" })
                let fit = try await GarminFITSDK.read(site.activityFile(id))
                #expect(fit.integrity && fit.errors.isEmpty, "\(site.service) \(id): \(fit.errors)")
                let session = fit.first("session_mesgs")
                let distance = try #require(ride["distance_m"] as? Double)
                let received = try #require(session["total_distance"] as? Double)
                #expect(abs(received - distance) <= max(1, distance * 0.001), "\(site.service) \(id): \(received) m, the ride \(distance) m")
                let moving = try #require(ride["moving_time_s"] as? Double)
                #expect(abs((session["total_timer_time"] as? Double ?? 0) - moving) <= 1)
            }
        }
    }

    func expectRidesLastSaysDone(broker: MosquittoBroker, rig: Rig) async throws {
        let process = try ChildProcess(try Executables.find("mosquitto_sub", hint: "apt-get install mosquitto-clients").path,
                                       ["-p", String(broker.port), "-t", "ridegate/+/rides/last", "-C", "1", "-W", "5"], captureOutput: true)
        _ = await process.waitForExit(timeout: TestTime.seconds(10))
        let lines = await process.waitForAllOutput(timeout: 5)
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines.joined().utf8)) as? [String: Any])
        #expect(last["id"] as? Int == 2 && last["upload"] as? String == "done", "\(last)")
        let uploads = try #require(last["uploads"] as? [String: [String: Any]])
        #expect(uploads["intervals_icu"]?["activity_url"] as? String == "\(rig.intervals.baseURL)/activities/i1002")
        #expect(uploads["strava"]?["state"] as? String == "done")
    }
}
