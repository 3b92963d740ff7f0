import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// A privacy zone hides the rider's home as a training site's does: the demo's ride starts inside one of its own
/// (300 m around its first fix), and nothing published while inside places the bike there; the ride log keeps it all.
@Suite struct PrivacyZoneTests {
    /// The bundled ride's first position, read with the gateway's own parser.
    static func rideStart() throws -> (latitude: Double, longitude: Double) {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.repository + "/demo/ride.nmea")))
        let decoder = NMEADecoder()
        var assembler = FixAssembler()
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard case .decoded(let sentence) = decoder.decode(line: line) else { continue }
            for fix in assembler.consume(sentence) {
                if let latitude = fix.latitude, let longitude = fix.longitude { return (latitude, longitude) }
            }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// Every coordinate pair a payload holds, whatever its names (`lat`/`lon`, `latitude`/`longitude`).
    static func positions(_ json: [String: Any]) -> [(Double, Double)] {
        [("lat", "lon"), ("latitude", "longitude")].compactMap { names in
            guard let latitude = json[names.0] as? Double, let longitude = json[names.1] as? Double else { return nil }
            return (latitude, longitude)
        }
    }

    @Test("The demo's start is in a privacy zone: no published position within it, the ride log has the points there")
    func demoStartIsHidden() async throws {
        let start = try Self.rideStart()
        let distance = { (p: (Double, Double)) in GreatCircle.distanceMeters(lat1: start.latitude, lon1: start.longitude, lat2: p.0, lon2: p.1) }
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "#")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rg-privacy-\(UUID().uuidString)").path
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--start", "recorded", "--broker", "127.0.0.1:\(broker.port)", "--speed", "20",
                                     "--device-id", "privacy", "--state-directory", state], captureOutput: true)
        // Well past the zone: positions published again, the device tracker's among them.
        let messages = await sub.wait(timeout: TestTime.seconds(60)) { messages in
            messages.filter { $0.topic == "ridegate/privacy/gps" && $0.json["position_hidden"] as? Bool == false }.count >= 30
                && messages.contains { $0.topic == "ridegate/privacy/position" }
        }
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: 5).flatMap(ChildProcess.exitCode) == 0, "output: \(demo.lines.suffix(10))")

        let gps = messages.filter { $0.topic == "ridegate/privacy/gps" }
        let hidden = gps.filter { $0.json["position_hidden"] as? Bool == true }
        #expect(!hidden.isEmpty, "the ride starts inside the zone: its first fixes are hidden")
        #expect(hidden.allSatisfy { $0.json["lat"] is NSNull && $0.json["lon"] is NSNull && $0.json["alt_m"] is NSNull })
        #expect(hidden.allSatisfy { ($0.json["speed_mps"] as? Double) != nil }, "the rest of a hidden fix is published")
        let shown = messages.flatMap { message in Self.positions(message.json).map { (message.topic, $0) } }
        #expect(shown.contains { $0.0 == "ridegate/privacy/position" } && shown.contains { $0.0 == "ridegate/privacy/gps" })
        let inside = shown.filter { distance($0.1) <= DemoZone.radius }
        #expect(inside.isEmpty, "published within the zone: \(inside.prefix(5).map { "\($0.0) \(Int(distance($0.1))) m" })")
        let first = try #require(gps.first { $0.json["lat"] is Double })
        #expect(Self.positions(first.json).allSatisfy { distance($0) > DemoZone.radius })

        let logged = try await PythonSQLite.run("""
            import sqlite3, sys
            for lat, lon in sqlite3.connect(sys.argv[1]).execute("SELECT lat, lon FROM points ORDER BY time"):
                print(lat, lon)
            """, [state + "/rides.sqlite"])
        let points = logged.split(separator: "\n").compactMap { line -> (Double, Double)? in
            let parts = line.split(separator: " ").compactMap { Double($0) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        #expect(points.contains { distance($0) <= DemoZone.radius }, "the ride log keeps the points inside the zone")
    }

    @Test("ride.hide_privacy_zones_in_files: the exported track starts at the zone's edge; without it, at the start")
    func filesHideTheZone() async throws {
        let start = try Self.rideStart()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rg-privacy-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let zone = "[[privacy_zone]]\nlatitude = \(start.latitude)\nlongitude = \(start.longitude)\nradius_m = 300\n"
        try (zone + "[ride]\nhide_privacy_zones_in_files = true\n").write(toFile: directory + "/hiding.toml", atomically: true, encoding: .utf8)
        try zone.write(toFile: directory + "/showing.toml", atomically: true, encoding: .utf8)
        let broker = try await MosquittoBroker.start()
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--config", directory + "/hiding.toml", "--state-directory", directory + "/state", "--start", "recorded",
                                     "--broker", "127.0.0.1:\(broker.port)", "--speed", "60"], captureOutput: true)
        #expect(await demo.waitForRideTime(4 * 60), "\(demo.lines.suffix(3))")
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)

        var firstPoints: [String: Double] = [:]
        for config in ["hiding", "showing"] {
            let file = directory + "/\(config).gpx"
            let export = try ChildProcess(RepositoryPaths.executable, ["rides", "export", "latest", "--format", "gpx", "--config",
                                                                      directory + "/\(config).toml", "--state-directory", directory + "/state", "-o", file])
            #expect(await export.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 0)
            let python = try Executables.find("python3", hint: "apt-get install python3-gpxpy").path
            let read = try ChildProcess(python, ["-c", """
                import gpxpy, sys
                point = gpxpy.parse(open(sys.argv[1])).tracks[0].segments[0].points[0]
                print(point.latitude, point.longitude)
                """, file], captureOutput: true)
            let first = (await read.waitForAllOutput(timeout: TestTime.seconds(30))).last?.split(separator: " ").compactMap { Double($0) } ?? []
            try #require(first.count == 2)
            firstPoints[config] = GreatCircle.distanceMeters(lat1: start.latitude, lon1: start.longitude, lat2: first[0], lon2: first[1])
        }
        #expect((firstPoints["hiding"] ?? 0) > DemoZone.radius, "\(firstPoints)")
        #expect((firstPoints["showing"] ?? .infinity) < 50, "\(firstPoints)")
    }

    /// `GatewayAssembly.demoPrivacyRadius`, as docs/config.md states it.
    enum DemoZone {
        static let radius = 300.0
    }
}
