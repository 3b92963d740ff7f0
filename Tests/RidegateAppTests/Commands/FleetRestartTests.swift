import Foundation
import RidegateTestSupport
import Testing

/// A small fleet against the shipped fleet setup (deploy/fleet/acl, per-bike passwords, MQTT 5, a
/// persistent QoS 1 reader): the broker restarts mid-ride and every bike's readings still all arrive.
@Suite struct FleetRestartTests {
    static let bikes = ["bike-1", "bike-2", "bike-3", "bike-4"]

    @Test("Four bikes, the broker restarted mid-ride: each bike's seq complete at the fleet's reader, nothing refused")
    func brokerRestart() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-fleet-restart-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (index, user) in (Self.bikes + ["fleet-reader"]).enumerated() {
            try await SecureBrokerTests.run("mosquitto_passwd", ["-b"] + (index == 0 ? ["-c"] : []) + ["\(dir)/passwd", user, "\(user) pass"])
        }
        let brokerConfig = "allow_anonymous false\npassword_file \(dir)/passwd\nacl_file \(RidegateAppTestsPaths.repository)/deploy/fleet/acl\n"
        var broker = try await MosquittoBroker.start(extraConfig: brokerConfig, persistence: true)
        let port = broker.port
        let readerArguments = ["-c", "-i", "fleet-reader-\(port)", "-q", "1", "-u", "fleet-reader", "-P", "fleet-reader pass"]
        var reader = try MQTTSubscriber(port: port, topic: "ridegate/#", extraArguments: readerArguments)
        var demos: [ChildProcess] = []
        for bike in Self.bikes {
            let config = try TestConfigs.bike(user: bike, name: bike, dir: dir, extra: "homeassistant_discovery = false\nreconnect_max_s = 2")
            demos.append(try ChildProcess(RidegateAppTestsPaths.executable,
                                          ["demo", "--config", config, "--broker", "127.0.0.1:\(port)", "--speed", "10", "--keep-retained",
                                           "--device-id", bike, "--state-directory", "\(dir)/\(bike)-state"], captureOutput: true))
        }
        let before = await reader.wait(timeout: TestTime.seconds(20)) { m in
            Self.bikes.allSatisfy { StoreAndForwardTests.seqs(m, "ridegate/\($0)/gps").count >= 5 }
        }
        try #require(Self.bikes.allSatisfy { StoreAndForwardTests.seqs(before, "ridegate/\($0)/gps").count >= 5 })
        broker.stop()
        reader.stop()
        let delivered = reader.messages
        try await TestTime.pause(2) // the outage: each bike spools
        broker = try await MosquittoBroker.start(extraConfig: brokerConfig, port: port, persistence: true, directory: broker.directory)
        reader = try MQTTSubscriber(port: port, topic: "ridegate/#", extraArguments: readerArguments)
        let tops = Dictionary(uniqueKeysWithValues: Self.bikes.map { ($0, StoreAndForwardTests.seqs(delivered, "ridegate/\($0)/gps").max() ?? 0) })
        let after = await reader.wait(timeout: TestTime.seconds(40)) { m in
            Self.bikes.allSatisfy { bike in
                m.contains { $0.topic == "ridegate/\(bike)/gps" && $0.json["replayed"] == nil && ($0.json["seq"] as? Int ?? 0) > (tops[bike] ?? 0) + 20 }
            }
        }
        for demo in demos { demo.signal(SIGTERM) }
        for demo in demos { _ = await demo.waitForExit(timeout: TestTime.seconds(10)) }
        for (bike, demo) in zip(Self.bikes, demos) {
            let seqs = Set(StoreAndForwardTests.seqs(delivered + after, "ridegate/\(bike)/gps"))
            let top = seqs.max() ?? 0
            #expect(top > (tops[bike] ?? 0) + 20, "\(bike): readings up to \(top) after the restart")
            #expect(seqs == Set(1...max(1, top)), "\(bike): missing \(Set(1...max(1, top)).subtracting(seqs).sorted().prefix(10))")
            #expect(!(await demo.waitForAllOutput(timeout: 5)).contains { $0.contains("the broker refused") }, "\(bike) was refused")
        }
    }
}
