import Foundation
import RidegateLinux
import RidegateTestSupport
import Testing

/// GPS time to the system clock through chrony's SOCK refclock, against a real chronyd that leaves this
/// machine's clock alone (`-x`). The receiver on a pty says it is 100 s later than the system clock thinks:
/// chronyd must select the GPS and find the clock 100 s wrong. Before chronyd runs, ridegate says what to do.
@Suite(.serialized) struct ChronyTests {
    @Test("gps.chrony_socket: chronyd (-x) selects ridegate's GPS and finds the clock wrong by the receiver's offset")
    func chronyGetsGPSTime() async throws {
        let chronyd = try Executables.find("chronyd", hint: "apt-get install chrony")
        // chronyd refuses a command socket in a directory others can enter: 0700, and a short path (sun_path).
        let dir = "/tmp/rg-chrony-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = "\(dir)/gps.sock"
        let broker = try await MosquittoBroker.start()
        let pty = try PseudoTerminal()
        try """
            device_id = "c"
            state_directory = "\(dir)/state"
            [mqtt]
            host = "127.0.0.1"
            port = \(broker.port)
            homeassistant_discovery = false
            [gps]
            device = "\(pty.devicePath)"
            chrony_socket = "\(socket)"
            [heart_rate]
            enabled = false
            """.write(toFile: "\(dir)/c.toml", atomically: true, encoding: .utf8)
        // A receiver whose time is the system's + 100 s, to the hundredth, twice a second.
        let feeder = PeriodicWriter(pty.controller, every: 0.5) { _ in Self.epoch(at: Date().timeIntervalSince1970 + 100) }
        defer { feeder.stop() }
        let daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", "\(dir)/c.toml"], captureOutput: true)
        defer { daemon.signal(SIGTERM) }

        // No chronyd yet: said once, with what to check; the daemon goes on.
        let missing = await daemon.waitForOutput(timeout: TestTime.seconds(20)) { $0.contains { $0.contains("cannot give chrony GPS time") } }
        let warnings = missing.filter { $0.contains("cannot give chrony GPS time") }
        #expect(warnings.count == 1, "\(missing.suffix(6))")
        #expect(warnings.first?.contains("refclock SOCK") == true, "\(warnings)")

        try """
            refclock SOCK \(socket) refid GPS poll 0
            port 0
            cmdport 0
            pidfile \(dir)/chronyd.pid
            driftfile \(dir)/drift
            """.write(toFile: "\(dir)/chrony.conf", atomically: true, encoding: .utf8)
        // -x: never touch this machine's clock; -d: stay in front, log to stderr; -u root: no user switch.
        let chrony = try ChildProcess(chronyd.path, ["-x", "-d", "-u", "root", "-f", "\(dir)/chrony.conf"], captureOutput: true)
        defer { chrony.signal(SIGTERM) }
        let said = await chrony.waitForOutput(timeout: TestTime.seconds(40)) { $0.contains { $0.contains("System clock wrong by") } }
        #expect(said.contains { $0.contains("Selected source GPS") }, "\(said)")
        let wrongBy = said.first { $0.contains("System clock wrong by") }
            .flatMap { line in line.components(separatedBy: "wrong by ").last?.split(separator: " ").first.flatMap { Double($0) } }
        // The receiver's lines reach chronyd within milliseconds here; its 0.01 s resolution is the bound.
        #expect(wrongBy.map { abs($0 - 100) < 0.3 } == true, "chronyd: \(said.suffix(4))")
        #expect(await daemon.waitForOutput(timeout: TestTime.seconds(10)) { $0.contains { $0.contains("giving chrony GPS time") } }
            .contains { $0.contains("giving chrony GPS time") })
    }

    /// A GGA and an RMC at `gps` (seconds since 1970), to the hundredth.
    static func epoch(at gps: Double) -> String {
        var t = time_t(gps.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        let centis = Int((gps - gps.rounded(.down)) * 100)
        let hms = String(format: "%02d%02d%02d.%02d", parts.tm_hour, parts.tm_min, parts.tm_sec, centis)
        let date = String(format: "%02d%02d%02d", parts.tm_mday, parts.tm_mon + 1, parts.tm_year % 100)
        return NMEAText.sentence("GPGGA,\(hms),4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-21.0,M,,") + "\r\n"
            + NMEAText.sentence("GPRMC,\(hms),A,4000.00000,N,10500.00000,W,0.0,0.0,\(date),,,A") + "\r\n"
    }

    @Test("gps.chrony_socket must be an absolute path that fits a Unix socket address")
    func checked() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-chronyc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for bad in ["chrony.sock", "/" + String(repeating: "x", count: 120)] {
            try "[gps]\nchrony_socket = \"\(bad)\"\n".write(toFile: "\(dir)/c.toml", atomically: true, encoding: .utf8)
            let check = try ChildProcess(RepositoryPaths.executable, ["run", "--check-config", "--config", "\(dir)/c.toml"], captureOutput: true)
            #expect(await check.waitForExit(timeout: 20).flatMap(ChildProcess.exitCode) == 1) // --check-config: 1; run: 78
            let said = await check.waitForAllOutput(timeout: 5).joined(separator: "\n")
            #expect(said.contains("chrony_socket") && said.contains("refclock SOCK"), "\(said)")
        }
    }
}
