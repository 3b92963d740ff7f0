import Foundation
import RidegateTestSupport
import Testing

/// The built `ridegate demo` binary against a real mosquitto: what a user sees with ./scripts/demo.
@Suite(.serialized) struct CommandTests {
    @Test("Heart rate, zone, speed and distance arrive over MQTT; SIGTERM publishes offline and exits 0")
    func demoPublishesAndStopsCleanly() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/e2e/#")
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--keep-retained", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "20", "--device-id", "e2e"],
                                    captureOutput: true)
        // Heart rate with its zone, speed and distance: within seconds on an idle machine; the deadline is for a loaded
        // one (how soon is the demo's to show, not a test's to time).
        let first = await sub.wait(timeout: TestTime.seconds(60)) { messages in
            messages.contains { $0.topic == "ridegate/e2e/heart_rate" && $0.json["zone"] is Int }
                && messages.contains { $0.topic == "ridegate/e2e/gps" && ($0.json["speed_mps"] as? Double ?? 0) > 1 }
                && messages.contains { $0.topic == "ridegate/e2e/ride" && ($0.json["distance_m"] as? Double ?? 0) > 0 }
        }
        #expect(first.contains { $0.topic == "ridegate/e2e/ride" }, "\(first.map(\.topic))")
        // Then two trusted sun messages (a minute of ride time apart), however long the machine takes.
        let messages = await sub.wait(timeout: 60) { messages in
            messages.filter { $0.topic == "ridegate/e2e/sun" && $0.json["clock_trusted"] as? Bool == true }.count >= 2
        }
        #expect(messages.contains { $0.topic == "ridegate/e2e/status" && $0.payload == "online" })
        let heartRate = try #require(messages.first { $0.topic == "ridegate/e2e/heart_rate" }?.json)
        #expect((heartRate["bpm"] as? Int ?? 0) > 40)
        #expect(heartRate["contact"] as? String == "detected")
        #expect((heartRate["rr_ms"] as? [Double])?.isEmpty == false)
        // The sun is published, and its countdown moves as the ride goes on.
        let countdown = messages.filter { $0.topic == "ridegate/e2e/sun" && $0.json["clock_trusted"] as? Bool == true }.compactMap { $0.json["seconds_to_sunset"] as? Int }
        #expect(countdown.count >= 2 && countdown[1] < countdown[0])
        // seq increases by one per message on each topic.
        let gpsSeqs = messages.filter { $0.topic == "ridegate/e2e/gps" }.compactMap { $0.json["seq"] as? Int }
        #expect(gpsSeqs == Array(1...gpsSeqs.count))

        demo.signal(SIGTERM)
        let status = await demo.waitForExit(timeout: 2) // the orderly stop the issue promises: within 2 s
        #expect(status.flatMap(ChildProcess.exitCode) == 0, "output: \(demo.lines.suffix(10))")
        let after = await sub.wait(timeout: 5) { $0.last { $0.topic == "ridegate/e2e/status" }?.payload == "offline" }
        #expect(after.last { $0.topic == "ridegate/e2e/status" }?.payload == "offline")
        let log = await demo.waitForOutput(timeout: 5) { $0.contains { $0.contains("stopping") && $0.contains("SIGTERM") } }
        #expect(log.contains { $0.contains("stopping") && $0.contains("SIGTERM") })

        try await Self.expectRetainedHealth(port: broker.port)
        // The last ride summary is retained and marked final, with the strap's totals; the ride log names the ride.
        let summary = try #require(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/e2e/ride").first).json
        #expect(summary["final"] as? Bool == true, "\(summary)")
        #expect((summary["avg_hr_bpm"] as? Int ?? 0) > 60 && (summary["max_hr_bpm"] as? Int ?? 0) >= summary["avg_hr_bpm"] as? Int ?? 0)
        #expect(summary["elevation_gain_m"] is Int && summary["elevation_loss_m"] is Int)
        let last = try #require(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/e2e/rides/last").first).json
        // Named without its place: the demo starts in a privacy zone of its own.
        #expect((last["name"] as? String)?.hasSuffix("ride 2026-06-21") == true, "\(last)")
        #expect(last["files"] as? [String] == [] && (last["distance_m"] as? Double ?? 0) > 0)
    }

    /// `health` is retained (a subscriber arriving later gets it) and has every field docs/mqtt.md lists.
    static func expectRetainedHealth(port: Int) async throws {
        let retainedHealth = try #require(try await MQTTSubscriber.retained(port: port, topic: "ridegate/e2e/health").first)
        let health = retainedHealth.json
        let numbers = ["uptime_s", "clock_offset_s", "strap_reconnects", "sensor_reconnects", "coalesced", "spool_depth", "spool_dropped", "spool_recoveries", "mqtt_connects", "mqtt_refused", "replayed",
                       "ride_log_bytes", "rides_removed", "gps_time_rejected", "gps_time_steps", "ride_log_waiting", "ride_log_dropped", "ride_log_recoveries"]
        for key in numbers {
            // A JSON number (Foundation on Linux reads true/false as numbers too, so look at the text).
            let text = retainedHealth.payload
            let value = text.range(of: "\"\(key)\":").map { text[$0.upperBound...].prefix(1) } ?? ""
            #expect(value == "-" || value.first?.isNumber == true, "health.\(key) is not a number in \(text)")
        }
        #expect(health["clock_trusted"] as? Bool == true)
        #expect(health["gps_state"] as? String == "stopped")
        #expect(health["spool_mode"] as? String == "disk" && health["spool_recoveries"] as? Int == 0)
        #expect(health["mqtt_connects"] as? Int == 1 && health["spool_dropped"] as? Int == 0 && health["strap_reconnects"] as? Int == 0)
        #expect((health["ts"] as? String)?.hasPrefix("2026-06-21T") == true)
        #expect(health["ride_log"] as? String == "disk" && health["ride_log_waiting"] as? Int == 0 && health["ride_log_dropped"] as? Int == 0)
        #expect(health["state_storage"] as? String == "writable" && health["config"] as? String == "file")
        #expect(Set(health.keys) == Set(numbers + ["ts", "clock_trusted", "gps_state", "spool_mode", "ride_log", "mqtt_broker", "state_storage", "config"]),
                "undocumented or missing: \(health.keys.sorted())")
        #expect((health["ride_log_bytes"] as? Int ?? 0) > 0 && health["rides_removed"] as? Int == 0)

    }

    @Test("run --check-config: 0 for a valid file, 1 naming line and key for a bad one")
    func checkConfig() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let good = dir.appendingPathComponent("good.toml").path
        let bad = dir.appendingPathComponent("bad.toml").path
        try "[mqtt]\nport = 1883\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "[mqtt]\nport = 1883\n[zones]\nmax_hr = 400\n".write(toFile: bad, atomically: true, encoding: .utf8)

        let ok = try ChildProcess(RepositoryPaths.executable, ["run", "--check-config", "--config", good], captureOutput: true)
        #expect(await ok.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 0)
        let notOK = try ChildProcess(RepositoryPaths.executable, ["run", "--check-config", "--config", bad], captureOutput: true)
        #expect(await notOK.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 1)
        let message = await notOK.waitForOutput(timeout: 5) { !$0.isEmpty }.joined(separator: "\n")
        #expect(message.contains("bad.toml:4: zones.max_hr: 400 is out of range"))
    }

    @Test("--check-config fails on what run would refuse: a password file others can read, one that is a FIFO or 3 GB, a missing ca_file (run: exit 78)")
    func checkConfigFiles() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "secret\n".write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
        chmod(dir + "/pw", 0o644)
        #expect(mkfifo(dir + "/pw-fifo", 0o600) == 0)
        #expect(FileManager.default.createFile(atPath: dir + "/pw-huge", contents: nil) && truncate(dir + "/pw-huge", 3 << 30) == 0 && chmod(dir + "/pw-huge", 0o600) == 0)
        let cases = [
            ("[mqtt]\nusername = \"u\"\npassword_file = \"\(dir)/pw\"\n", "can be read by anyone on the system; run: chmod 600"),
            ("[mqtt]\nusername = \"u\"\npassword_file = \"\(dir)/pw-fifo\"\n", "\(dir)/pw-fifo is a FIFO, not a file"),
            ("[mqtt]\nusername = \"u\"\npassword_file = \"\(dir)/pw-huge\"\n", "\(dir)/pw-huge is 3221225472 bytes, larger than 4 KiB"),
            ("[mqtt]\nca_file = \"\(dir)/missing-ca.crt\"\n", "mqtt.ca_file = \"\(dir)/missing-ca.crt\": cannot read it"),
        ]
        for (text, reason) in cases {
            try text.write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
            let check = try ChildProcess(RepositoryPaths.executable, ["run", "--check-config", "--config", dir + "/c.toml"], captureOutput: true)
            #expect(await check.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 1)
            #expect((await check.waitForAllOutput(timeout: 5)).joined().contains(reason), "\(check.lines)")
            let run = try ChildProcess(RepositoryPaths.executable, ["run", "--config", dir + "/c.toml"], captureOutput: true)
            #expect(await run.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 78)
        }
        chmod(dir + "/pw", 0o600)
        try "[mqtt]\nusername = \"u\"\npassword_file = \"\(dir)/pw\"\n".write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        let ok = try ChildProcess(RepositoryPaths.executable, ["run", "--check-config", "--config", dir + "/c.toml"], captureOutput: true)
        #expect(await ok.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 0)
    }

    @Test("hr decode: JSON for a valid payload, exit 65 and an error kind for a malformed one")
    func hrDecode() async throws {
        let ok = try ChildProcess(RepositoryPaths.executable, ["hr", "decode", "104620032103", "--json"], captureOutput: true)
        #expect(await ok.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 0)
        let out = await ok.waitForOutput(timeout: 5) { !$0.isEmpty }.first ?? ""
        let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        #expect(json?["heart_rate_bpm"] as? Int == 70)
        #expect(json?["hr_format"] as? String == "uint8")
        #expect(json?["rr_intervals_ms"] as? [Double] == [781.25, 782.227])
        let bad = try ChildProcess(RepositoryPaths.executable, ["hr", "decode", "1048e8", "--json"], captureOutput: true)
        #expect(await bad.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 65)
        #expect(await bad.waitForOutput(timeout: 5) { $0.contains(#"{"error":"rr_odd_length"}"#) }.contains(#"{"error":"rr_odd_length"}"#))
    }

    @Test("sun names the zone in force on the day it shows: MDT in June, MST in January (it said today's)")
    func sunZoneOfTheDay() async throws {
        for (date, zone) in [("2026-06-21", "MDT"), ("2026-01-21", "MST")] {
            let sun = try ChildProcess(RepositoryPaths.executable, ["sun", "--lat", "40", "--lon", "-105", "--date", date],
                                       captureOutput: true, environment: ["TZ": "America/Denver", "PATH": "/usr/bin:/bin"])
            #expect(await sun.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 0)
            let lines = await sun.waitForAllOutput(timeout: 5)
            #expect(lines.first?.hasSuffix("(times in \(zone))") == true, "\(lines.prefix(3))")
            #expect(lines.contains { $0.hasPrefix("sunrise") && $0.hasSuffix(zone) })
        }
        // The 12-hour clock where the locale reads one.
        let us = try ChildProcess(RepositoryPaths.executable, ["sun", "--lat", "40", "--lon", "-105", "--date", "2026-06-21"],
                                  captureOutput: true, environment: ["TZ": "America/Denver", "LC_TIME": "en_US.UTF-8", "PATH": "/usr/bin:/bin"])
        #expect(await us.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 0)
        let lines = await us.waitForAllOutput(timeout: 5)
        #expect(lines.contains { $0.range(of: #"^sunrise +2026-06-21 [1-9]:\d\d:\d\d AM MDT$"#, options: .regularExpression) != nil }, "\(lines)")
        #expect(lines.contains { $0.range(of: #"^sunset +2026-06-21 [1-9]:\d\d:\d\d PM MDT$"#, options: .regularExpression) != nil }, "\(lines)")
    }

    @Test("sun --json keeps the contract: statuses always, events only when they occur")
    func sunJSON() async throws {
        let ok = try ChildProcess(RepositoryPaths.executable,
                                  ["sun", "--lat", "39.7392", "--lon", "-104.9903", "--date", "2024-03-20", "--json"], captureOutput: true)
        let line = await ok.waitForOutput(timeout: 10) { !$0.isEmpty }.first ?? ""
        let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        #expect(json["status"] as? String == "ok" && json["civil_status"] as? String == "ok")
        #expect((json["sunrise"] as? String)?.hasPrefix("2024-03-20T13:02:2") == true)
        #expect((json["sunset"] as? String)?.hasPrefix("2024-03-21T01:12:") == true)
        let polar = try ChildProcess(RepositoryPaths.executable,
                                     ["sun", "--lat", "78.2232", "--lon", "15.6267", "--date", "2026-06-21", "--json"], captureOutput: true)
        let polarLine = await polar.waitForOutput(timeout: 10) { !$0.isEmpty }.first ?? ""
        let polarJSON = try JSONSerialization.jsonObject(with: Data(polarLine.utf8)) as? [String: Any] ?? [:]
        #expect(polarJSON["status"] as? String == "polar_day")
        #expect(polarJSON["sunrise"] == nil && polarJSON["sunset"] == nil)
        #expect(polarJSON["solar_noon"] != nil)
        // A usage error: exit 64 (EX_USAGE) and a message naming the option and its range, not a crash or a hang.
        let bad = try ChildProcess(RepositoryPaths.executable, ["sun", "--lat", "91", "--lon", "0"], captureOutput: true)
        #expect(await bad.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 64)
        #expect(await bad.waitForAllOutput(timeout: 5).contains { $0.contains("'--lat'") && $0.contains("-90 to 90") })
    }

    @Test("scan without Bluetooth in the kernel or an adapter: exit 69 and one line saying what is missing, no hang")
    func scanWithoutBluetooth() async throws {
        // These machines have no radio (and no AF_BLUETOOTH); the e2e VM scans for real.
        for arguments in [["scan", "--seconds", "2"], ["scan", "--seconds", "2", "--json"]] {
            let scan = try ChildProcess(RepositoryPaths.executable, arguments, captureOutput: true)
            #expect(await scan.waitForExit(timeout: TestTime.seconds(15)).flatMap(ChildProcess.exitCode) == 69)
            let output = await scan.waitForAllOutput(timeout: 5)
            #expect(output.count == 1 && output[0].hasPrefix("ridegate: ") && output[0].contains("Bluetooth"), "\(output)")
        }
    }

    @Test("led off (the unit's ExecStopPost): exit 0 with no LED configured; a missing chip is named, exit 69")
    func ledOff() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-led-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "[led]\nmode = \"off\"\n".write(toFile: "\(dir)/off.toml", atomically: true, encoding: .utf8)
        try "[led]\nmode = \"single\"\nchip = \"gpiochip9\"\nline = 3\n".write(toFile: "\(dir)/missing.toml", atomically: true, encoding: .utf8)
        let off = try ChildProcess(RepositoryPaths.executable, ["led", "off", "--config", "\(dir)/off.toml"], captureOutput: true)
        #expect(await off.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 0)
        let missing = try ChildProcess(RepositoryPaths.executable, ["led", "off", "--config", "\(dir)/missing.toml"], captureOutput: true)
        #expect(await missing.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 69)
        let message = await missing.waitForAllOutput(timeout: 5).joined(separator: "\n")
        #expect(message.contains("line 3 on gpiochip9") && message.contains("gpiodetect"), "\(message)")
    }

    @Test("SIGHUP, SIGUSR1 and SIGUSR2 are not death: a log line each, the ride goes on; SIGQUIT stops it in order")
    func signalsThatDoNotKill() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/sig/#")
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--keep-retained", "--broker", "127.0.0.1:\(broker.port)", "--speed", "10", "--device-id", "sig"], captureOutput: true)
        await sub.wait(timeout: TestTime.seconds(10)) { $0.contains { $0.topic == "ridegate/sig/gps" } }
        for (sig, name) in [(SIGHUP, "SIGHUP"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2")] {
            demo.signal(sig)
            let log = await demo.waitForOutput(timeout: 5) { $0.contains { $0.contains("signal ignored") && $0.contains(name) } }
            #expect(log.contains { $0.contains("signal ignored") && $0.contains(name) }, "\(name) not reported")
        }
        #expect(!demo.hasExited)
        let before = sub.messages.filter { $0.topic == "ridegate/sig/gps" }.count
        let still = await sub.wait(timeout: 5) { $0.filter { $0.topic == "ridegate/sig/gps" }.count > before + 2 }
        #expect(still.filter { $0.topic == "ridegate/sig/gps" }.count > before + 2, "the ride stopped after the signals")
        demo.signal(SIGQUIT)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(5)).flatMap(ChildProcess.exitCode) == 0)
        let after = await sub.wait(timeout: 5) { $0.last { $0.topic == "ridegate/sig/status" }?.payload == "offline" }
        #expect(after.last { $0.topic == "ridegate/sig/status" }?.payload == "offline")
    }

    @Test("State is the rider's own: directory 0700, spool and position files 0600, whatever the umask")
    func stateFileModes() async throws {
        let broker = try await MosquittoBroker.start()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rg-modes-\(UUID().uuidString)").path
        let old = umask(0o022)
        defer { umask(old) }
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/modes/#")
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--broker", "127.0.0.1:\(broker.port)", "--speed", "20", "--device-id", "modes", "--state-directory", state],
                                    captureOutput: true)
        await sub.wait(timeout: TestTime.seconds(10)) { $0.contains { $0.topic == "ridegate/modes/sun" } } // the position is remembered by then
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(5)).flatMap(ChildProcess.exitCode) == 0)
        func mode(_ path: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        }
        #expect(mode(state) == 0o700)
        #expect(mode(state + "/spool.sqlite") == 0o600)
        #expect(mode(state + "/last-position") == 0o600)
        for extra in ["/spool.sqlite-wal", "/spool.sqlite-shm"] where FileManager.default.fileExists(atPath: state + extra) {
            #expect(mode(state + extra) == 0o600, "\(extra)")
        }
    }

    @Test("--check-config on /dev/zero, a FIFO, a 3 GB file, a binary file, a 10,000-level header, a 70 kB prefix: exit 1 at once with the reason, no crash")
    func hostileConfigFiles() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-hostile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try ("[mqtt]\nport = 1883\n" + "\u{0}[zones]\nmax_hr = 400\n").write(toFile: "\(dir)/nul.toml", atomically: true, encoding: .utf8)
        try ("[" + Array(repeating: "a", count: 10_000).joined(separator: ".") + "]\n").write(toFile: "\(dir)/deep.toml", atomically: true, encoding: .utf8)
        try ("[mqtt]\nprefix = \"" + String(repeating: "p", count: 70_000) + "\"\n").write(toFile: "\(dir)/prefix.toml", atomically: true, encoding: .utf8)
        try ("[mqtt]\nclient_id = \"" + String(repeating: "c", count: 200) + "\"\n").write(toFile: "\(dir)/client.toml", atomically: true, encoding: .utf8)
        #expect(mkfifo("\(dir)/fifo.toml", 0o600) == 0)
        #expect(FileManager.default.createFile(atPath: "\(dir)/huge.toml", contents: nil) && truncate("\(dir)/huge.toml", 3 << 30) == 0) // sparse
        for (file, reason) in [("/dev/zero", "the config is a device, not a file"), ("\(dir)/fifo.toml", "the config is a FIFO, not a file"),
                               ("\(dir)/huge.toml", "the config is 3221225472 bytes, larger than 1 MiB"),
                               ("\(dir)/nul.toml", "nul.toml:3:1: a NUL byte"), ("\(dir)/deep.toml", "deep.toml:1:257: TOML syntax error: a key nested more than 128 levels deep"),
                               ("\(dir)/prefix.toml", "prefix.toml:2: mqtt.prefix: is 70000 bytes long; at most 200"),
                               ("\(dir)/client.toml", "client.toml:2: mqtt.client_id: is 200 bytes long; at most 128")] {
            let check = try ChildProcess(RepositoryPaths.executable, ["run", "--check-config", "--config", file], captureOutput: true)
            #expect(await check.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 1, "\(file)")
            let output = await check.waitForAllOutput(timeout: 5).joined(separator: "\n")
            #expect(output.contains(reason), "\(file): \(output)")
        }
    }
}
