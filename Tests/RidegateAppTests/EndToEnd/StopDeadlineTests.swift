import Foundation
import Glibc
import RidegateTestSupport
import Testing

/// A stop that never hangs: systemd gives the unit 10 s (TimeoutStopSec) before SIGKILL, so no blocking step —
/// the broker's DNS lookup, TCP connect, TLS handshake — may hold the stop longer.
@Suite struct StopDeadlineTests {
    @Test("SIGTERM while the TCP connect to the broker hangs (its packets vanish, in a network namespace): out within the unit's 10 s",
          .enabled(if: getuid() == 0, "needs root for a network namespace (unshare --net)"))
    func blackHoledBroker() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-stop-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/ridegate.toml"
        try """
            state_directory = "\(dir)/state"
            [mqtt]
            host = "10.255.255.1"
            [gps]
            enabled = false
            [heart_rate]
            enabled = false
            """.write(toFile: config, atomically: true, encoding: .utf8)
        // A namespace whose only route leads nowhere: a SYN to 10.255.255.1 is never answered, the connect hangs.
        let daemon = try ChildProcess("/usr/bin/unshare", ["--net", "sh", "-c",
            "ip link set lo up && ip route add default dev lo && exec \"$0\" run --config \"$1\"", RepositoryPaths.executable, config],
            captureOutput: true)
        // Started; its first attempt begins at once and hangs (nothing is said about the broker until the stop).
        let started = await daemon.waitForOutput(timeout: TestTime.seconds(20)) { $0.contains { $0.contains("ridegate started") } }
        #expect(started.contains { $0.contains("ridegate started") }, "\(started)")
        try await TestTime.pause(2)
        let stopAsked = Date()
        daemon.signal(SIGTERM)
        let status = await daemon.waitForExit(timeout: TestTime.seconds(9)).flatMap(ChildProcess.exitCode)
        let said = await daemon.waitForAllOutput(timeout: 5)
        #expect(status == 0, "not out within 9 s of SIGTERM (\(Date().timeIntervalSince(stopAsked)) s): \(said.suffix(5))")
        #expect(said.contains { $0.contains("a connection attempt to the broker has not ended") }, "\(said.suffix(8))")
        if status == nil { daemon.signal(SIGKILL) }
    }
}
