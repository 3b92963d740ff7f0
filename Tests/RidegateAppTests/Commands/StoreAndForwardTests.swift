import Foundation
import RidegateTestSupport
import Testing

/// The issue's acceptance scenario, shortened: broker down while the demo rides, the gateway SIGKILLed
/// during the outage and restarted, the broker restarted. A subscriber with a persistent session must see
/// every `seq` of `heart_rate` and `gps`, in order per topic, with the readings' original timestamps.
@Suite(.serialized) struct StoreAndForwardTests {
    static func seqs(_ messages: [MQTTSubscriber.Message], _ topic: String) -> [Int] {
        messages.filter { $0.topic == topic }.compactMap { $0.json["seq"] as? Int }
    }

    /// First occurrences in arrival order (duplicates are allowed: at least once).
    static func firstOccurrences(_ seqs: [Int]) -> [Int] {
        var seen = Set<Int>()
        return seqs.filter { seen.insert($0).inserted }
    }

    @Test("Outage, SIGKILL and restart lose nothing: every seq arrives, in order per topic")
    func nothingLost() async throws {
        let port = try FreePort.loopback()
        var broker = try MosquittoBroker(port: port, persistence: true)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rg-sf-\(UUID().uuidString)").path
        let subscriberArguments = ["-c", "-i", "sf-\(port)", "-q", "1"]
        var sub = try MQTTSubscriber(port: port, topic: "ridegate/sf/#", extraArguments: subscriberArguments)
        let demoArguments = ["demo", "--broker", "127.0.0.1:\(port)", "--speed", "10", "--device-id", "sf", "--state-directory", state]

        var demo = try ChildProcess(RidegateAppTestsPaths.executable, demoArguments, captureOutput: true)
        await sub.wait(timeout: 15) { Self.seqs($0, "ridegate/sf/gps").count >= 5 }
        broker.stop()
        sub.stop()
        let before = sub.messages // everything this subscriber process received before it went away
        #expect(Self.seqs(before, "ridegate/sf/gps").count >= 5)
        try await TestTime.pause(1.5) // the outage: readings go to the spool
        demo.signal(SIGKILL)
        _ = await demo.waitForExit(timeout: 5)

        demo = try ChildProcess(RidegateAppTestsPaths.executable, demoArguments, captureOutput: true)
        try await TestTime.pause(1) // still no broker: the restarted gateway spools too
        broker = try MosquittoBroker(port: port, persistence: true, directory: broker.directory)
        sub = try MQTTSubscriber(port: port, topic: "ridegate/sf/#", extraArguments: subscriberArguments)
        let after = await sub.wait(timeout: 30) { messages in
            // Enough live readings after the replay to know the backlog is through.
            messages.contains { $0.topic == "ridegate/sf/gps" && $0.json["replayed"] == nil && ($0.json["seq"] as? Int ?? 0) > 60 }
        }
        demo.signal(SIGTERM)
        _ = await demo.waitForExit(timeout: 5)

        let all = before + after
        for topic in ["ridegate/sf/gps", "ridegate/sf/heart_rate"] {
            let firsts = Self.firstOccurrences(Self.seqs(all, topic))
            let top = firsts.max() ?? 0
            #expect(top > 40, "\(topic): too few readings to judge")
            #expect(Set(firsts) == Set(1...top), "\(topic): missing \(Set(1...top).subtracting(firsts).sorted().prefix(10))")
            #expect(firsts == firsts.sorted(), "\(topic): out of order")
        }
        let replayed = after.filter { $0.json["replayed"] as? Bool == true }
        #expect(!replayed.isEmpty)
        // Replayed GPS readings keep their own (ride) time, not the time of the replay.
        #expect(replayed.filter { $0.topic == "ridegate/sf/gps" }.allSatisfy { ($0.json["ts"] as? String)?.hasPrefix("2026-06-21T16:0") == true })
    }
}
