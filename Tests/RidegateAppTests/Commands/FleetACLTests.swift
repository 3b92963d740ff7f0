import Foundation
import RidegateTestSupport
import Testing

/// The fleet broker setup ridegate ships (deploy/fleet/acl) against a real mosquitto: each bike, logged in
/// as its device id, writes its own topics only. A bike that speaks as another is refused, and says so.
@Suite struct FleetACLTests {
    func bike(_ id: String, user: String, dir: String, port: Int) throws -> ChildProcess {
        let config = try TestConfigs.bike(user: user, name: id, dir: dir, extra: "homeassistant_discovery = false")
        return try ChildProcess(RidegateAppTestsPaths.executable,
                                ["demo", "--config", config, "--broker", "127.0.0.1:\(port)", "--speed", "20",
                                 "--device-id", id, "--state-directory", "\(dir)/\(id)-state"], captureOutput: true)
    }

    @Test("deploy/fleet/acl: a bike's readings arrive under its own id; one using another bike's id is refused and says so")
    func confined() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-fleet-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for user in ["bike-1", "bike-2", "fleet-reader"] {
            // -c makes the file, with the first user.
            try await SecureBrokerTests.run("mosquitto_passwd", ["-b"] + (user == "bike-1" ? ["-c"] : []) + ["\(dir)/passwd", user, "\(user) pass"])
        }
        let acl = RidegateAppTestsPaths.repository + "/deploy/fleet/acl"
        let broker = try await MosquittoBroker.start(extraConfig: "allow_anonymous false\npassword_file \(dir)/passwd\nacl_file \(acl)\n")
        let reader = try MQTTSubscriber(port: broker.port, topic: "ridegate/#", extraArguments: ["-u", "fleet-reader", "-P", "fleet-reader pass"])
        let honest = try bike("bike-1", user: "bike-1", dir: dir, port: broker.port)
        let thief = try bike("bike-2", user: "bike-1", dir: dir, port: broker.port) // bike-1's credentials, bike-2's topics
        let seen = await reader.wait(timeout: TestTime.seconds(20)) { $0.filter { $0.topic == "ridegate/bike-1/gps" }.count >= 5 }
        #expect(seen.filter { $0.topic == "ridegate/bike-1/gps" }.count >= 5, "\(honest.lines.suffix(4))")
        let refused = await thief.waitForOutput(timeout: TestTime.seconds(20)) { $0.contains { $0.contains("the broker refused a reading") } }
        #expect(refused.contains { $0.contains("the broker refused a reading") && $0.contains("ridegate/bike-2/") }, "\(refused.suffix(4))")
        honest.signal(SIGTERM)
        thief.signal(SIGTERM)
        _ = await honest.waitForExit(timeout: TestTime.seconds(10))
        _ = await thief.waitForExit(timeout: TestTime.seconds(10))
        #expect(!reader.messages.contains { $0.topic.hasPrefix("ridegate/bike-2/") }, "\(reader.messages.filter { $0.topic.hasPrefix("ridegate/bike-2/") }.prefix(3))")
    }
}
