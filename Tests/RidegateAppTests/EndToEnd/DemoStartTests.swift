import Foundation
import RidegateTestSupport
import Testing

/// The demo rides today: its recorded ride is moved to the moment it starts (`--start now`, the default), so
/// GPS time, the sun, the ride's name and its file names are today's, and the clock agrees with GPS time.
@Suite struct DemoStartTests {
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    @Test("By default the replayed ride starts now: GPS time, the sun's day and the ride's name are today's, clock_offset_s small")
    func ridesToday() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/today/#")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rg-today-\(UUID().uuidString)").path
        let started = Date()
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--keep-retained", "--broker", "127.0.0.1:\(broker.port)", "--device-id", "today", "--state-directory", state],
                                    captureOutput: true)
        let seen = await sub.wait(timeout: TestTime.seconds(15)) { $0.filter { $0.topic == "ridegate/today/gps" }.count >= 3 }
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let first = try #require(seen.first { $0.topic == "ridegate/today/gps" }?.json["ts"] as? String)
        let gpsTime = try #require(ISO8601DateFormatter().date(from: String(first.prefix(19)) + "Z"))
        #expect(abs(gpsTime.timeIntervalSince(started)) < 60, "first fix at \(first), started \(Self.iso(started))")
        let health = try #require(try await MQTTSubscriber.retained(port: broker.port, topic: "ridegate/today/health").first).json
        #expect(abs(health["clock_offset_s"] as? Double ?? 99) < 5, "\(health)")
        let sun = try #require(seen.last { $0.topic == "ridegate/today/sun" }?.json)
        let sunset = try #require(sun["sunset"] as? String)
        let sunsetTime = try #require(ISO8601DateFormatter().date(from: String(sunset.prefix(19)) + "Z"))
        #expect(abs(sunsetTime.timeIntervalSince(started)) < 36 * 3600, "sunset \(sunset)")
        let output = await demo.waitForAllOutput(timeout: 5)
        // The name's day is the local solar day where the ride began (longitude / 15 hours from UTC): in the
        // evening west of Greenwich it is the UTC date before.
        // (The ride's start, not a published fix: the demo starts inside a privacy zone, where `gps` has no position.)
        let lon = try PrivacyZoneTests.rideStart().longitude
        let day = String(Self.iso(gpsTime.addingTimeInterval(lon / 15 * 3600)).prefix(10))
        #expect(output.contains { $0.hasPrefix("ride: ") && $0.contains(" ride \(day): ") }, "\(output.suffix(3)), solar day \(day)")
    }

    @Test("--start takes 'recorded' or a UTC time; anything else is a usage error that says what it takes")
    func startArgument() async throws {
        let process = try ChildProcess(RepositoryPaths.executable, ["demo", "--start", "tomorrow"], captureOutput: true)
        #expect(await process.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 64)
        let said = await process.waitForAllOutput(timeout: 5).joined(separator: " ")
        #expect(said.contains("'tomorrow'") && said.contains("'recorded'") && said.contains("2026-06-21T16:00:00Z"), "\(said)")
    }
}
