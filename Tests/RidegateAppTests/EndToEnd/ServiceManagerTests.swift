import Foundation
import RidegateLinux
import RidegateTestSupport
import Testing

/// `ridegate run` under a stand-in for systemd: a Unix datagram socket as $NOTIFY_SOCKET.
@Suite struct ServiceManagerTests {
    final class NotifySocket: @unchecked Sendable {
        let path: String
        let fd: Int32
        let messages = Observed<[String]>([])

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("rg-notify-\(UUID().uuidString.prefix(8))").path
            let socketFD = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            fd = socketFD
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let pathBytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0 else { throw ChildProcessError(message: "bind \(path): \(errno)") }
            let messages = messages
            Thread {
                var buffer = [UInt8](repeating: 0, count: 512)
                while true {
                    let n = recv(socketFD, &buffer, buffer.count, 0)
                    if n <= 0 { return }
                    let text = String(decoding: buffer[0..<n], as: UTF8.self)
                    messages.update { $0.append(text) }
                }
            }.start()
        }

        deinit {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
            unlink(path)
        }
    }

    @Test("READY=1 once running, WATCHDOG=1 while the pipeline moves, STOPPING=1 on SIGTERM")
    func notifiesSystemd() async throws {
        let broker = try await MosquittoBroker.start()
        let notify = try NotifySocket()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-svc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
            state_directory = "\(dir)/state"
            [mqtt]
            port = \(broker.port)
            host = "127.0.0.1"
            [gps]
            device = "\(dir)/no-gps"
            [heart_rate]
            enabled = false
            """.write(toFile: "\(dir)/ridegate.toml", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment["WATCHDOG_USEC"] = "400000" // pings every 0.2 s
        let daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", "\(dir)/ridegate.toml"],
                                      captureOutput: true, environment: environment)
        let seen = await notify.messages.wait(timeout: 10) { $0.filter { $0 == "WATCHDOG=1" }.count >= 3 }
        #expect(seen.first?.hasPrefix("READY=1") == true, "\(seen.prefix(3)) \(daemon.lines.suffix(5))")
        #expect(seen.filter { $0 == "WATCHDOG=1" }.count >= 3)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 5).flatMap(ChildProcess.exitCode) == 0)
        #expect(await notify.messages.wait(timeout: 5) { $0.contains("STOPPING=1") }.contains("STOPPING=1"))
    }

    @Test("doctor: a talking GPS on a pty and a reachable broker pass; exit 0; a missing device fails with a fix")
    func doctor() async throws {
        let broker = try await MosquittoBroker.start()
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-doc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func write(_ device: String) throws {
            try """
                [mqtt]
                host = "127.0.0.1"
                port = \(broker.port)
                [gps]
                device = "\(device)"
                [heart_rate]
                enabled = false
                """.write(toFile: "\(dir)/ridegate.toml", atomically: true, encoding: .utf8)
        }
        try write(pty.devicePath)
        // The receiver talks at 10 Hz (on its own queue: see PeriodicWriter).
        let feeder = PeriodicWriter(pty.controller, every: 0.1) { second in
            NMEAText.sentence("GPRMC,\(String(format: "1200%02d.00", second % 60)),A,4000.00000,N,10500.00000,W,1.0,90.0,210626,,,A") + "\r\n"
        }
        let ok = try ChildProcess(RepositoryPaths.executable, ["doctor", "--config", "\(dir)/ridegate.toml"], captureOutput: true)
        let status = await ok.waitForExit(timeout: 30)
        feeder.stop()
        // The output reader may lag the exit by a moment: wait for the report's last line.
        let report = await ok.waitForOutput(timeout: 5) { $0.contains { $0.contains("clock:") } }.joined(separator: "\n")
        #expect(status.flatMap(ChildProcess.exitCode) == 0, "\(report)")
        #expect(report.contains("GPS: valid NMEA at 9600 baud"))
        #expect(report.contains("MQTT broker: connected"))

        try write("\(dir)/no-such-gps")
        let bad = try ChildProcess(RepositoryPaths.executable, ["doctor", "--config", "\(dir)/ridegate.toml"], captureOutput: true)
        #expect(await bad.waitForExit(timeout: 30).flatMap(ChildProcess.exitCode) == 1)
        #expect(await bad.waitForOutput(timeout: 5) { $0.joined().contains("fix: plug the receiver in") }.joined().contains("fix: plug the receiver in"))
    }
}
