import Foundation
import RidegateCore
import RidegateDemo
import RidegateTestSupport
import Testing

/// A 10 Hz receiver's capture replayed through the whole gateway (`ridegate demo --ride capture.nmea`): riding,
/// a stand, riding, a minute without fixes (a tunnel), riding.
struct TenHertzReplayTests {
    /// 150 s riding, 90 s standing, 150 s riding, 60 s without a sentence while riding on, 150 s riding; RMC and
    /// GGA ten times a second.
    static func capture() -> (text: String, ridden: Double) {
        let start = Timestamp(secondsSince1970: 1_782_028_800) // 2026-06-21T08:00:00Z
        var lines: [String] = []
        var north = 0.0
        var tenths = 0
        func epochs(_ seconds: Int, speed: Double, silent: Bool = false) {
            for _ in 0..<(seconds * 10) {
                tenths += 1
                north += speed / 10
                guard !silent else { continue }
                let time = start + Double(tenths) / 10
                let latitude = 40 + north / 111_195
                lines.append(NMEASentenceWriter.rmc(time: time, latitude: latitude, longitude: -105, speed: speed, course: speed > 0 ? 0 : nil))
                lines.append(NMEASentenceWriter.gga(time: time, latitude: latitude, longitude: -105, altitude: 1600))
            }
        }
        epochs(150, speed: 7)
        epochs(90, speed: 0)
        epochs(150, speed: 7)
        epochs(60, speed: 7, silent: true)
        epochs(150, speed: 7)
        return (lines.joined(separator: "\r\n") + "\r\n", north)
    }

    @Test("Moving time is the 450 s ridden with a fix (±2 %); the minute without fixes adds its line, not its time")
    func movingTimeAtTenHertz() async throws {
        // 21 600 sentences: on a thread of its own, not one of the suite's two cooperative threads (seconds in a debug build).
        let (text, ridden) = try await OffThePool.run { Self.capture() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rg-10hz-\(UUID().uuidString).nmea").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let replay = try await DemoReplay.run(path, speed: 20)
        let ride = try #require(replay.rides.first, "\(replay.output.suffix(5))")
        let moving = try #require(SyntheticRideReplayTests.number(ride["moving_time_s"]))
        let distance = try #require(SyntheticRideReplayTests.number(ride["distance_m"]))
        #expect(abs(moving - 450) <= 9, "moving \(moving) s, 450 s ridden with a fix")
        #expect(abs(distance - ridden) <= 0.01 * ridden, "\(distance) m, \(ridden) m ridden")
    }
}
