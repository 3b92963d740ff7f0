import Foundation
import RidegateTestSupport
import Testing

/// A broker that refuses a topic (its ACL), with MQTT 5: a refusal is not a delivery. The reading is said with
/// its topic and the broker's reason, counted on `health`, and leaves the spool; the topics it allows arrive.
@Suite struct RefusedPublishTests {
    @Test("MQTT 5 against an ACL that denies heart_rate: said with topic and reason, counted as mqtt_refused, nothing left spooled; GPS arrives")
    func refusedByTheACL() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-acl-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try await SecureBrokerTests.run("mosquitto_passwd", ["-b", "-c", "\(dir)/passwd", "bike", "bike pass"])
        try """
            user bike
            topic readwrite ridegate/r/#
            topic deny ridegate/r/heart_rate
            topic readwrite homeassistant/#
            """.write(toFile: "\(dir)/acl", atomically: true, encoding: .utf8)
        let broker = try await MosquittoBroker.start(extraConfig: "allow_anonymous false\npassword_file \(dir)/passwd\nacl_file \(dir)/acl\n")
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/r/#", extraArguments: ["-u", "bike", "-P", "bike pass"])
        let config = try TestConfigs.bike(user: "bike", name: "ridegate", dir: dir)
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--config", config, "--broker", "127.0.0.1:\(broker.port)", "--speed", "20",
                                     "--device-id", "r", "--keep-retained", "--state-directory", "\(dir)/state"], captureOutput: true)
        let said = await demo.waitForOutput(timeout: TestTime.seconds(20)) { $0.contains { $0.contains("the broker refused a reading") } }
        let refusal = said.first { $0.contains("the broker refused a reading") } ?? ""
        #expect(refusal.contains("ridegate/r/heart_rate") && refusal.lowercased().contains("not authorized"), "\(said.suffix(5))")
        let gps = await sub.wait(timeout: TestTime.seconds(20)) { $0.filter { $0.topic == "ridegate/r/gps" }.count >= 5 }
        #expect(gps.filter { $0.topic == "ridegate/r/gps" }.count >= 5)
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        #expect(!sub.messages.contains { $0.topic == "ridegate/r/heart_rate" })
        // Said once (then once a minute with the count), however many were refused; none waits to be refused again.
        #expect((await demo.waitForAllOutput(timeout: 5)).filter { $0.contains("the broker refused a reading") }.count == 1)
        let health = try #require(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/r/health",
                                                                    extraArguments: ["-u", "bike", "-P", "bike pass"]).first).json
        #expect((health["mqtt_refused"] as? Int ?? 0) >= 1, "\(health)")
        // Nothing refused waits in the spool to be refused again at the next start.
        let spooled = try await PythonSQLite.run("print(sqlite3.connect(sys.argv[1]).execute(\"SELECT count(*) FROM spool WHERE topic = 'heart_rate'\").fetchone()[0])",
                                           ["\(dir)/state/spool.sqlite"])
        #expect(spooled.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "heart_rate readings still spooled: \(spooled)")
    }
}
