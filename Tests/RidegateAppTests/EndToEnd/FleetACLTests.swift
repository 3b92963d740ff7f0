import Foundation
import RidegateTestSupport
import Testing

/// The fleet broker setup ridegate ships (deploy/fleet/acl) against a real mosquitto: each bike, logged in
/// as its device id, writes its own topics only, its Home Assistant discovery message included. A bike that
/// speaks as another is refused, and says so.
@Suite struct FleetACLTests {
    func bike(_ id: String, user: String, dir: String, port: Int) throws -> ChildProcess {
        let config = try TestConfigs.bike(user: user, name: id, dir: dir)
        return try ChildProcess(RepositoryPaths.executable,
                                ["demo", "--config", config, "--broker", "127.0.0.1:\(port)", "--speed", "20",
                                 "--device-id", id, "--state-directory", "\(dir)/\(id)-state"], captureOutput: true)
    }

    @Test("deploy/fleet/acl with discovery on: a bike's readings and discovery go through unrefused; another bike's id is refused and says so")
    func confined() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-fleet-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for user in ["bike-1", "bike-2", "fleet-reader"] {
            // -c makes the file, with the first user.
            try await SecureBrokerTests.run("mosquitto_passwd", ["-b"] + (user == "bike-1" ? ["-c"] : []) + ["\(dir)/passwd", user, "\(user) pass"])
        }
        let acl = RepositoryPaths.repository + "/deploy/fleet/acl"
        let broker = try await MosquittoBroker.start(extraConfig: "allow_anonymous false\npassword_file \(dir)/passwd\nacl_file \(acl)\n")
        let reader = try MQTTSubscriber(port: broker.port, topic: "ridegate/#", extraArguments: ["-u", "fleet-reader", "-P", "fleet-reader pass"])
        // bike-1 was upgraded from a release with per-entity discovery: the ACL refuses clearing those topics.
        try await HomeAssistantTests.earlierInstall(state: "\(dir)/bike-1-state")
        var honest = try bike("bike-1", user: "bike-1", dir: dir, port: broker.port)
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
        // The honest bike, discovery on, had no reading refused, and its device message went through; clearing the
        // old configs was refused, said once, and is not tried again at the next start.
        let said = await honest.waitForAllOutput(timeout: 5)
        #expect(!said.contains { $0.contains("the broker refused a reading") }, "\(said.filter { $0.contains("refused") })")
        #expect(said.filter { $0.contains("refused to clear an earlier release's") }.count == 1, "\(said.filter { $0.contains("refused") })")
        let earlier = reader.messages.filter { $0.topic == "ridegate/bike-1/gps" }.count
        honest = try bike("bike-1", user: "bike-1", dir: dir, port: broker.port)
        _ = await reader.wait(timeout: TestTime.seconds(20)) { $0.filter { $0.topic == "ridegate/bike-1/gps" }.count >= earlier + 5 }
        honest.signal(SIGTERM)
        #expect(!(await honest.waitForAllOutput(timeout: 10)).contains { $0.contains("refused") })
        // Discovery is confined by the one pattern: bike-1 may write its own device message, not bike-2's (MQTT 5
        // says which was refused).
        let publish = try Executables.find("mosquitto_pub", hint: "apt-get install mosquitto-clients").path
        for (target, refused) in [("bike-1", false), ("bike-2", true)] {
            let pub = try ChildProcess(publish, ["-h", "127.0.0.1", "-p", String(broker.port), "-u", "bike-1", "-P", "bike-1 pass", "-V", "mqttv5",
                                                 "-q", "1", "-t", "homeassistant/device/\(target)/config", "-m", "{}"], captureOutput: true)
            let said = await pub.waitForAllOutput(timeout: 5)
            #expect(said.contains { $0.contains("Not authorized") } == refused, "\(target): \(said)")
        }
    }
}
