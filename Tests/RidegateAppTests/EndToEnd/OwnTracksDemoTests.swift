import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The demo as an OwnTracks device on a real broker: every message checked against the booklet's message types
/// (`Tests/Fixtures/owntracks/messages.schema.json`, with python3-jsonschema), none from inside the demo's privacy
/// zone, the last location retained and `lwt` at the stop.
@Suite struct OwnTracksDemoTests {
    static let config = """
        [owntracks]
        user = "jo"
        device = "bike"
        tracker_id = "JO"
        interval_s = 10
        """

    /// A folder of its own holding `config` as `ridegate.toml` (the demo's state goes in `state/` beside it).
    static func configDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rg-owntracks-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try config.write(toFile: directory + "/ridegate.toml", atomically: true, encoding: .utf8)
        return directory
    }

    @Test("The demo rider on owntracks/jo/bike: locations as the booklet has them, outside the zone, retained; lwt at the stop")
    func demoAsOwnTracksDevice() async throws {
        let directory = try Self.configDirectory()
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "owntracks/#")
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--config", directory + "/ridegate.toml", "--state-directory", directory + "/state", "--start", "recorded",
                                     "--broker", "127.0.0.1:\(broker.port)", "--speed", "20", "--device-id", "owntracks", "--keep-retained"],
                                    captureOutput: true)
        let riding = await sub.wait(timeout: TestTime.seconds(60)) { $0.filter { $0.json["_type"] as? String == "location" }.count >= 4 }
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0, "\(demo.lines.suffix(5))")
        let all = await sub.wait(timeout: 5) { $0.contains { $0.json["_type"] as? String == "lwt" } }

        #expect(all.allSatisfy { $0.topic == "owntracks/jo/bike" }, "\(Set(all.map(\.topic)))")
        let locations = riding.filter { $0.json["_type"] as? String == "location" }
        #expect(locations.count >= 4)
        let times = locations.compactMap { $0.json["tst"] as? Int }
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 10 }, "one per interval_s of ride time: \(times)")
        #expect(all.last?.json["_type"] as? String == "lwt")
        try await Self.expectBookletShape(all.map(\.payload))

        let start = try PrivacyZoneTests.rideStart()
        for location in locations {
            let latitude = try #require(location.json["lat"] as? Double), longitude = try #require(location.json["lon"] as? Double)
            #expect(GreatCircle.distanceMeters(lat1: start.latitude, lon1: start.longitude, lat2: latitude, lon2: longitude) > 300)
        }
        let retained = try await MQTTSubscriber.retained(port: broker.port, topic: "owntracks/jo/bike")
        #expect(retained.count == 1 && retained.first?.json["_type"] as? String == "location", "\(retained.map(\.payload))")
    }

    @Test("A killed demo's positions are cleared by the next one's orderly stop, though it never left its privacy zone")
    func stopClearsWhatAKilledRunLeft() async throws {
        let directory = try Self.configDirectory()
        let broker = try await MosquittoBroker.start()
        let publish = try Executables.find("mosquitto_pub", hint: "apt-get install mosquitto-clients").path
        for (topic, payload) in [("ridegate/left/position", #"{"latitude":40.01,"longitude":-105.27,"gps_accuracy":5}"#),
                                 ("owntracks/jo/bike", #"{"_type":"location","lat":40.01,"lon":-105.27,"tst":1782057600,"acc":5}"#)] {
            let seed = try ChildProcess(publish, ["-p", String(broker.port), "-t", topic, "-r", "-m", payload])
            #expect(await seed.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        }
        // At the ride's own pace its first fixes are all inside the demo's zone: nothing positional is published.
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--config", directory + "/ridegate.toml", "--state-directory", directory + "/state", "--start", "recorded",
                                     "--broker", "127.0.0.1:\(broker.port)", "--device-id", "left"], captureOutput: true)
        #expect(await demo.waitForRideTime(3), "\(demo.lines.suffix(3))")
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let left = try await MQTTSubscriber.retained(port: broker.port, topic: "#")
        #expect(left.isEmpty, "\(left.map { "\($0.topic) \($0.payload)" })")
    }

    /// Every message against the schema, by python3-jsonschema: the failures, each with its message, or none.
    static func expectBookletShape(_ payloads: [String]) async throws {
        let messages = FileManager.default.temporaryDirectory.appendingPathComponent("rg-owntracks-\(UUID().uuidString).jsonl").path
        try payloads.joined(separator: "\n").write(toFile: messages, atomically: true, encoding: .utf8)
        let schema = RepositoryPaths.repository + "/Tests/Fixtures/owntracks/messages.schema.json"
        let python = try Executables.find("python3", hint: "apt-get install python3 python3-jsonschema").path
        let check = try ChildProcess(python, ["-c", """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            for line in open(sys.argv[2]):
                for error in jsonschema.Draft202012Validator(schema).iter_errors(json.loads(line)):
                    print("refused:", line.strip(), "--", error.message)
            print("checked")
            """, schema, messages], captureOutput: true)
        let output = await check.waitForAllOutput(timeout: TestTime.seconds(30))
        #expect(output.contains("checked") && !output.contains { $0.hasPrefix("refused") }, "\(output.prefix(10))")
    }
}
