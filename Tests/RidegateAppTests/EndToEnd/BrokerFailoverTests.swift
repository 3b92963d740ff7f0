import Foundation
import RidegateTestSupport
import Testing

/// `mqtt.hosts`: a cluster's brokers. The one in use goes away mid-ride; the gateway moves to the next, which
/// gets every reading, those of the outage replayed from the spool.
@Suite struct BrokerFailoverTests {
    /// The demo riding at 10× with `mqtt.hosts` these loopback ports (fast reconnects), the first given as `--broker`.
    static func demo(hosts ports: [Int], deviceID: String) throws -> ChildProcess {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-failover-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let hosts = ports.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", ")
        try "[mqtt]\nhosts = [\(hosts)]\nreconnect_min_s = 1\nreconnect_max_s = 2\n".write(toFile: "\(dir)/ridegate.toml", atomically: true, encoding: .utf8)
        return try ChildProcess(RepositoryPaths.executable,
                                ["demo", "--config", "\(dir)/ridegate.toml", "--broker", "127.0.0.1:\(ports.first ?? 0)", "--speed", "10",
                                 "--device-id", deviceID, "--keep-retained", "--state-directory", "\(dir)/state"], captureOutput: true)
    }

    @Test("The broker in use stops mid-ride: the gateway moves to the next in mqtt.hosts; no seq missing across both; health names the broker")
    func failover() async throws {
        let first = try await MosquittoBroker.start()
        let second = try await MosquittoBroker.start()
        let onFirst = try MQTTSubscriber(port: first.port, topic: "ridegate/f/#")
        let onSecond = try MQTTSubscriber(port: second.port, topic: "ridegate/f/#")
        let demo = try Self.demo(hosts: [first.port, second.port], deviceID: "f")
        let before = await onFirst.wait(timeout: TestTime.seconds(20)) { StoreAndForwardTests.seqs($0, "ridegate/f/gps").count >= 5 }
        try #require(StoreAndForwardTests.seqs(before, "ridegate/f/gps").count >= 5, "\(demo.lines.suffix(5))")
        await first.stop()
        let lastOnFirst = StoreAndForwardTests.seqs(onFirst.messages, "ridegate/f/gps").max() ?? 0
        let after = await onSecond.wait(timeout: TestTime.seconds(30)) {
            (StoreAndForwardTests.seqs($0, "ridegate/f/gps").max() ?? 0) > lastOnFirst + 20
        }
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let seqs = Set(StoreAndForwardTests.seqs(onFirst.messages + after, "ridegate/f/gps"))
        let top = seqs.max() ?? 0
        #expect(top > lastOnFirst + 20, "the second broker got readings up to \(top), the first up to \(lastOnFirst)")
        #expect(seqs == Set(1...max(1, top)), "missing: \(Set(1...max(1, top)).subtracting(seqs).sorted().prefix(10))")
        let log = await demo.waitForAllOutput(timeout: 5)
        #expect(log.contains { $0.contains("reconnected to broker") && $0.contains("127.0.0.1:\(second.port)") }, "\(log.filter { $0.contains("broker") })")
        let health = try #require(try await MQTTSubscriber.retained(port: second.port, topic: "ridegate/f/health").first).json
        #expect(health["mqtt_broker"] as? String == "127.0.0.1:\(second.port)", "\(health)")
    }
}
