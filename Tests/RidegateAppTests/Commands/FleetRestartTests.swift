import Foundation
import RidegateTestSupport
import Testing

/// Ten bikes against the shipped fleet setup (deploy/fleet/acl, per-bike passwords, MQTT 5, discovery on) and a
/// default mosquitto (`max_queued_messages` 1000): the broker restarts mid-ride, every bike replays its backlog at
/// its pace, and a persistent QoS 1 reader that keeps up with the live flow but no more still receives every `seq`
/// of every reading topic. (Unpaced, the backlogs arrive together and the broker drops what its queue cannot hold.)
@Suite struct FleetRestartTests {
    static let bikes = (1...10).map { "bike-\($0)" }
    /// The spooled topics (readings and the ride summary): each must arrive with every seq.
    static let readingTopics = ["gps", "heart_rate", "sensor/demo-power/power", "ride"]
    static let speed = 10.0
    static let replayPerSecond = 50.0
    /// The reader handles 1 500 messages a second: four times the fleet's live flow (about 330 a second at the
    /// demo's 10×), not a backlog poured in at once.
    static let readerPerSecond = 1500.0

    @Test("Ten bikes, the broker restarted mid-ride: every seq of every reading topic at the fleet's reader, nothing refused")
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
        var reader = try MQTTSubscriber(port: port, topic: "ridegate/#", extraArguments: readerArguments, messagesPerSecond: Self.readerPerSecond)
        var demos: [ChildProcess] = []
        for bike in Self.bikes {
            // The default pace in real time, 50 a second (the demo multiplies it by its speed).
            let config = try TestConfigs.bike(user: bike, name: bike, dir: dir, extra: "reconnect_max_s = 2\nreplay_per_s = \(Self.replayPerSecond / Self.speed)")
            demos.append(try ChildProcess(RidegateAppTestsPaths.executable,
                                          ["demo", "--config", config, "--broker", "127.0.0.1:\(port)", "--speed", "\(Self.speed)", "--keep-retained",
                                           "--device-id", bike, "--state-directory", "\(dir)/\(bike)-state"], captureOutput: true))
        }
        let before = await reader.wait(timeout: TestTime.seconds(20)) { m in
            Self.bikes.allSatisfy { StoreAndForwardTests.seqs(m, "ridegate/\($0)/gps").count >= 5 }
        }
        try #require(Self.bikes.allSatisfy { StoreAndForwardTests.seqs(before, "ridegate/\($0)/gps").count >= 5 })
        await broker.stop()
        let delivered = await reader.stopAndCollect()
        try await TestTime.pause(12) // the outage: each bike spools some 400 readings, 4 000 for the fleet
        broker = try await MosquittoBroker.start(extraConfig: brokerConfig, port: port, persistence: true, directory: broker.directory)
        reader = try MQTTSubscriber(port: port, topic: "ridegate/#", extraArguments: readerArguments, messagesPerSecond: Self.readerPerSecond)
        let tops = Dictionary(uniqueKeysWithValues: Self.bikes.map { ($0, StoreAndForwardTests.seqs(delivered, "ridegate/\($0)/gps").max() ?? 0) })
        // Until every bike rides on live well past the outage with nothing missing (the backlogs are paced: they
        // take a few seconds), or the time is up and the checks below say what is missing. Looked at once a
        // second, not at every line: a reader that stalls on its own checks is the slow subscriber whose queue
        // overflows.
        var after: [MQTTSubscriber.Message] = []
        for _ in 0..<60 {
            try await TestTime.pause(1)
            after = reader.messages
            let m = after
            let done = Self.bikes.allSatisfy { bike in
                m.contains { $0.topic == "ridegate/\(bike)/gps" && $0.json["replayed"] == nil && ($0.json["seq"] as? Int ?? 0) > (tops[bike] ?? 0) + 20 }
                    && Self.readingTopics.allSatisfy { Self.complete(StoreAndForwardTests.seqs(delivered + m, "ridegate/\(bike)/\($0)")) }
            }
            if done { break }
        }
        for demo in demos { demo.signal(SIGTERM) }
        for demo in demos { _ = await demo.waitForExit(timeout: TestTime.seconds(10)) }
        for (bike, demo) in zip(Self.bikes, demos) {
            let gps = Set(StoreAndForwardTests.seqs(delivered + after, "ridegate/\(bike)/gps"))
            #expect((gps.max() ?? 0) > (tops[bike] ?? 0) + 20, "\(bike): readings up to \(gps.max() ?? 0) after the restart")
            for topic in Self.readingTopics {
                let seqs = Set(StoreAndForwardTests.seqs(delivered + after, "ridegate/\(bike)/\(topic)"))
                let top = seqs.max() ?? 0
                #expect(top > 0 && Self.complete(Array(seqs)), "\(bike) \(topic): missing \(Set(1...max(1, top)).subtracting(seqs).sorted().prefix(10))")
            }
            #expect(!(await demo.waitForAllOutput(timeout: 5)).contains { $0.contains("the broker refused") }, "\(bike) was refused")
        }
    }

    /// 1 to the highest, each once at least.
    static func complete(_ seqs: [Int]) -> Bool {
        guard let top = seqs.max() else { return false }
        return Set(seqs) == Set(1...max(1, top))
    }
}
