import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The GPS read through a real gpsd: `gpsfake` (Debian's gpsd-clients) starts gpsd on a free port and feeds it
/// the demo ride's NMEA; `ridegate run` with `gps.gpsd` publishes its fixes, and comes back when gpsd restarts.
/// gpsfake plays at the receiver's pace (three sentences an epoch, a third of a second apart): faster, GPS time
/// would outrun the clock the gateway judges epochs by, and it would rightly ignore them.
@Suite(.serialized) struct GPSDSourceTests {
    func startGPSFake(port: Int, log: String) throws -> ChildProcess {
        try ChildProcess(try Executables.find("gpsfake", hint: "apt-get install gpsd gpsd-clients").path,
                         ["-P", String(port), "-c", "0.333", "-q", log], captureOutput: true)
    }

    /// The ride's first `lines` sentences with their times moved so that the first epoch falls at `start`.
    func ride(_ lines: Int, from start: Timestamp) throws -> String {
        let text = try String(contentsOfFile: RepositoryPaths.repository + "/demo/ride.nmea", encoding: .utf8)
        let shift = NMEATimeShift(from: Timestamp(iso8601: "2026-06-21T16:00:00Z") ?? start, to: start)
        return text.split(separator: "\n").prefix(lines).map { String(decoding: shift.apply(to: ArraySlice($0.utf8)), as: UTF8.self) }
            .joined(separator: "\n").appending("\n")
    }

    @Test("gps.gpsd: fixes through gpsd reach MQTT; gpsd stopping says no_device; a restarted gpsd is read again")
    func throughGPSD() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-gpsd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let recorded = try #require(Timestamp(iso8601: "2026-06-21T16:00:00Z"))
        // 100 s of playing: gpsd may be feeding it before the gateway, slow to start beside the suite, is connected.
        try ride(300, from: recorded).write(toFile: dir + "/ride.nmea", atomically: true, encoding: .utf8)
        let broker = try await MosquittoBroker.start()
        let gpsdPort = try FreePort.loopback()
        try """
            device_id = "g"
            state_directory = "\(dir)/state"
            [mqtt]
            port = \(broker.port)
            host = "127.0.0.1"
            homeassistant_discovery = false
            [gps]
            gpsd = "127.0.0.1:\(gpsdPort)"
            [heart_rate]
            enabled = false
            """.write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/g/#")
        var gpsfake = try startGPSFake(port: gpsdPort, log: dir + "/ride.nmea")
        let daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", dir + "/c.toml"], captureOutput: true)
        defer { daemon.signal(SIGTERM) }

        // Waited for, not timed: the fresh-clone CI on 7e2ebcb had the gateway connected to gpsd but no fix yet after 20 s.
        let fixes = await sub.wait(timeout: TestTime.seconds(60)) { messages in
            messages.filter { $0.topic == "ridegate/g/gps" && ($0.json["lat"] as? Double).map { abs($0 - 40.01) < 0.05 } == true }.count >= 5
        }
        #expect(fixes.filter { $0.topic == "ridegate/g/gps" }.count >= 5, "\(daemon.lines.suffix(8))")
        #expect(fixes.contains { $0.topic == "ridegate/g/gps/state" && $0.json["state"] as? String == "ok" })

        // gpsd goes away: said on gps/state and in the log; then it is back on the same port and read again,
        // playing on from where GPS time has got to (the gateway ignores a receiver whose time went back).
        // SIGINT: gpsfake stops its gpsd on the way out (on SIGTERM it leaves it running).
        let lastFix = try #require(sub.messages.last { $0.topic == "ridegate/g/gps" }.flatMap { ($0.json["ts"] as? String).flatMap(Timestamp.init(iso8601:)) })
        let seenAt = Date()
        gpsfake.signal(SIGINT)
        _ = await gpsfake.waitForExit(timeout: TestTime.seconds(10))
        let gone = await sub.wait(timeout: TestTime.seconds(15)) { $0.last { $0.topic == "ridegate/g/gps/state" }?.json["state"] as? String == "no_device" }
        #expect(gone.last { $0.topic == "ridegate/g/gps/state" }?.json["state"] as? String == "no_device")
        let before = sub.messages.filter { $0.topic == "ridegate/g/gps" }.count
        try ride(90, from: lastFix + Date().timeIntervalSince(seenAt).rounded(.up) + 1).write(toFile: dir + "/again.nmea", atomically: true, encoding: .utf8)
        gpsfake = try startGPSFake(port: gpsdPort, log: dir + "/again.nmea")
        let again = await sub.wait(timeout: TestTime.seconds(40)) { $0.filter { $0.topic == "ridegate/g/gps" }.count >= before + 5 }
        #expect(again.filter { $0.topic == "ridegate/g/gps" }.count >= before + 5, "\(daemon.lines.suffix(8))")
        #expect(daemon.lines.contains { $0.contains("gpsd closed the connection; reconnecting") })
        gpsfake.signal(SIGINT)
        _ = await gpsfake.waitForExit(timeout: TestTime.seconds(10))
    }

    @Test("gps.gpsd is checked: an address that is not one, or together with gps.device, is refused with the fix")
    func config() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-gpsdc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (text, reason) in [("[gps]\ngpsd = \"gpsd://pi\"\n", "is not a gpsd address: no scheme is needed"),
                               ("[gps]\ngpsd = \"localhost\"\ndevice = \"/dev/ttyACM0\"\n", "set either gps.gpsd")] {
            try text.write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
            let check = try ChildProcess(RepositoryPaths.executable, ["run", "--check-config", "--config", dir + "/c.toml"], captureOutput: true)
            #expect(await check.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode) == 1)
            #expect((await check.waitForAllOutput(timeout: 5)).joined().contains(reason), "\(check.lines)")
        }
    }
}
