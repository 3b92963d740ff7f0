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
        let brokerConfig = "allow_anonymous false\npassword_file \(dir)/passwd\nacl_file \(RepositoryPaths.repository)/deploy/fleet/acl\n"
        var broker = try await MosquittoBroker.start(extraConfig: brokerConfig, persistence: true)
        let port = broker.port
        let readerArguments = ["-c", "-i", "fleet-reader-\(port)", "-q", "1", "-u", "fleet-reader", "-P", "fleet-reader pass"]
        var reader = try MQTTSubscriber(port: port, topic: "ridegate/#", extraArguments: readerArguments, messagesPerSecond: Self.readerPerSecond)
        var demos: [ChildProcess] = []
        for bike in Self.bikes {
            // The default pace in real time, 50 a second (the demo multiplies it by its speed).
            let config = try TestConfigs.bike(user: bike, name: bike, dir: dir, extra: "reconnect_max_s = 2\nreplay_per_s = \(Self.replayPerSecond / Self.speed)")
            demos.append(try ChildProcess(RepositoryPaths.executable,
                                          ["demo", "--config", config, "--broker", "127.0.0.1:\(port)", "--speed", "\(Self.speed)", "--keep-retained",
                                           "--device-id", bike, "--state-directory", "\(dir)/\(bike)-state"], captureOutput: true))
        }
        // Ten gateways starting beside the rest of the suite: generous. Counted by topic alone (no JSON per line).
        let before = await reader.wait(timeout: TestTime.seconds(60)) { m in
            Self.bikes.allSatisfy { bike in m.lazy.filter { $0.topic == "ridegate/\(bike)/gps" }.count >= 5 }
        }
        try #require(Self.bikes.allSatisfy { StoreAndForwardTests.seqs(before, "ridegate/\($0)/gps").count >= 5 })
        await broker.stop()
        var tally = SeqTally()
        tally.add(await reader.stopAndCollect())
        try await TestTime.pause(12) // the outage: each bike spools some 400 readings, 4 000 for the fleet
        broker = try await MosquittoBroker.start(extraConfig: brokerConfig, port: port, persistence: true, directory: broker.directory)
        reader = try MQTTSubscriber(port: port, topic: "ridegate/#", extraArguments: readerArguments, messagesPerSecond: Self.readerPerSecond)
        let tops = Dictionary(uniqueKeysWithValues: Self.bikes.map { ($0, tally.seqs["ridegate/\($0)/gps"]?.max() ?? 0) })
        try await Self.waitForBacklogs(reader, tally: &tally, tops: tops)
        for demo in demos { demo.signal(SIGTERM) }
        for demo in demos { _ = await demo.waitForExit(timeout: TestTime.seconds(10)) }
        for (bike, demo) in zip(Self.bikes, demos) {
            #expect(tally.liveTop["ridegate/\(bike)/gps", default: 0] > (tops[bike] ?? 0) + 20,
                    "\(bike): live readings up to \(tally.liveTop["ridegate/\(bike)/gps", default: 0]) after the restart")
            for topic in Self.readingTopics {
                let missing = tally.missing("ridegate/\(bike)/\(topic)")
                #expect(tally.seqs["ridegate/\(bike)/\(topic)"] != nil && missing.isEmpty,
                        "\(bike) \(topic): \(missing.count) missing, \(missing.prefix(10)); gps up to \(tops[bike] ?? 0) before the restart")
            }
            #expect(!(await demo.waitForAllOutput(timeout: 5)).contains { $0.contains("the broker refused") }, "\(bike) was refused")
        }
    }

    /// Until every bike rides on live well past the outage with nothing missing (the backlogs are paced: they take
    /// a few seconds), or two minutes pass and the checks say what is missing. Looked at once a second, each
    /// message parsed once: a test process busy with its own checks slows the reader it feeds, and a slow reader's
    /// queue at the broker overflows.
    static func waitForBacklogs(_ reader: MQTTSubscriber, tally: inout SeqTally, tops: [String: Int]) async throws {
        var counted = 0
        for _ in 0..<120 {
            try await TestTime.pause(1)
            let messages = reader.messages
            tally.add(messages.dropFirst(counted))
            counted = messages.count
            let t = tally
            let done = Self.bikes.allSatisfy { bike in
                t.liveTop["ridegate/\(bike)/gps", default: 0] > (tops[bike] ?? 0) + 20
                    && Self.readingTopics.allSatisfy { t.seqs["ridegate/\(bike)/\($0)"] != nil && t.missing("ridegate/\(bike)/\($0)").isEmpty }
            }
            if done { return }
        }
    }

    /// Every seq seen on each topic, and the highest seen live (not replayed from a spool).
    struct SeqTally {
        private(set) var seqs: [String: Set<Int>] = [:]
        private(set) var liveTop: [String: Int] = [:]

        mutating func add(_ messages: some Sequence<MQTTSubscriber.Message>) {
            for message in messages {
                let json = message.json
                guard let seq = json["seq"] as? Int else { continue }
                seqs[message.topic, default: []].insert(seq)
                if json["replayed"] == nil { liveTop[message.topic] = max(liveTop[message.topic] ?? 0, seq) }
            }
        }

        /// The seqs from 1 to the highest seen that were not.
        func missing(_ topic: String) -> [Int] {
            guard let seen = seqs[topic], let top = seen.max() else { return [] }
            return Set(1...max(1, top)).subtracting(seen).sorted()
        }
    }
}
