import Foundation
@testable import RidegateApp
@testable import RidegateDemo
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// Head units' odd files, made here (no corpus needed), replayed through the whole gateway with `ridegate demo
/// --ride`: a strap that was never paired, an FTP only in the session, recording gaps while auto-paused with
/// positions that drifted, and a tunnel.
struct SyntheticRideReplayTests {
    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    /// 20 minutes in steps of power across the zones of a 220 W FTP.
    static func steppedPower(heartRate: Int = 140) -> SyntheticRide {
        var ride = SyntheticRide()
        ride.heartRate = heartRate
        for watts in [90, 150, 190, 215, 250, 300, 400, 160] {
            ride.power = watts
            ride.ride(150, speed: 7)
        }
        return ride
    }

    @Test("Heart rate 0 on every record (no strap paired): the replay rides without a strap, says so, and every other value is there")
    func heartRateZeroThroughout() async throws {
        let ride = Self.steppedPower(heartRate: 0)
        let plan = try RecordedRide(bytes: ride.fit(), name: "zero.fit")
        #expect(!plan.hasHeartRate && plan.hasPower)
        #expect(plan.notes.contains { $0.contains("no strap paired") }, "\(plan.notes)")

        let replay = try await DemoReplay.run(try ride.write(), speed: 60)
        #expect(replay.output.contains { $0.contains("no strap paired") }, "\(replay.output.prefix(10))")
        let listed = try #require(replay.rides.first)
        #expect(listed["avg_hr_bpm"] is NSNull, "\(listed)")
        #expect(Self.number(listed["avg_power_w"]).map { $0 > 150 } == true, "\(listed)")
    }

    @Test("An FTP only in the session's threshold_power gives the ride's power zones, within 5 % of the ride's time of the zones its records give")
    func ftpFromTheSession() async throws {
        let ride = Self.steppedPower()
        let replay = try await DemoReplay.run(try ride.write(ftp: 220), speed: 60)
        let listed = try #require(replay.rides.first)
        let zones = try #require(listed["power_zone_s"] as? [NSNumber], "\(listed)").map(\.doubleValue)
        var expected = Array(repeating: 0.0, count: zones.count)
        let bounds = ZoneBoundaries.power(ftp: 220)
        for point in ride.points.dropFirst() { expected[bounds.zone(for: point.power ?? 0)] += 1 }
        let total = expected.reduce(0, +)
        for (ours, theirs) in zip(zones, expected) {
            #expect(abs(ours - theirs) <= 0.05 * total, "zones \(zones), the records' \(expected)")
        }
        try Self.expectSensorsToTheEnd(replay.state)
    }

    /// The demo's files carry the sensors to the ride's last point. (Its first few may come from the first sensor
    /// to send, before the others and the first fix. A reading is fresh for 5 s of ride time, which the demo's
    /// clock makes 83 ms at 60× and 50 ms at 100×: the demo held up that long by a machine busy with the rest of
    /// the suite leaves those seconds' points without a sensor (20 of 1 800 once in CI), so up to three in a
    /// hundred may lack one.)
    static func expectSensorsToTheEnd(_ state: String) throws {
        let store = try SQLiteRideStore(path: state + "/rides.sqlite", readOnly: true)
        let points = try store.points(ride: try #require(try store.rides().first).id)
        let lacking = points.indices.filter { points[$0].heartRate == nil || points[$0].power == nil || points[$0].cadence == nil }
        #expect(points.count > 1000 && lacking.allSatisfy { $0 < points.count - 60 },
                "the ride's last points lack a sensor: points \(lacking.suffix(3)) of \(points.count)")
        #expect(lacking.count <= points.count * 3 / 100, "\(lacking.count) of \(points.count) points lack a sensor: \(lacking)")
    }

    @Test("The bundled demo at 100×: its sensors ride until the receiver's last fix is read, so its last points carry them")
    func demoSensorsToTheEnd() async throws {
        let replay = try await DemoReplay.run(RepositoryPaths.repository + "/demo/ride.nmea", speed: 100)
        try Self.expectSensorsToTheEnd(replay.state)
    }

    @Test("Recording gaps while auto-paused, positions drifting 30–50 m across each: no distance is added for them")
    func pausedGapsAddNoDistance() async throws {
        var ride = SyntheticRide()
        var generator = SystemRandomNumberGenerator()
        ride.ride(60, speed: 7)
        for _ in 0..<10 {
            // Slowing to a stop, the head unit pauses; it resumes as the rider sets off, somewhere else by the drift.
            for speed in [5.0, 3.0, 1.5, 0.5] { ride.ride(1, speed: speed) }
            ride.gap(Int.random(in: 30...120, using: &generator), metres: Double.random(in: 30...50, using: &generator),
                     bearing: Double.random(in: 0..<360, using: &generator), counted: false, speed: 1.5)
            for speed in [3.0, 5.0] { ride.ride(1, speed: speed) }
            ride.ride(90, speed: 7)
        }
        let replay = try await DemoReplay.run(try ride.write(), speed: 60)
        let distance = try #require(Self.number(replay.rides.first?["distance_m"]), "\(replay.rides)")
        #expect(abs(distance - ride.distance) <= 0.01 * ride.distance, "\(distance) m, the head unit's \(ride.distance) m")
    }

    @Test("A tunnel: no fix for a minute at riding speed, and the line across it counts as ridden")
    func tunnelCounts() async throws {
        var ride = SyntheticRide()
        ride.ride(120, speed: 8)
        ride.gap(60, metres: 470, bearing: 45, counted: true, speed: 8)
        ride.ride(120, speed: 8)
        let replay = try await DemoReplay.run(try ride.write(), speed: 30)
        let distance = try #require(Self.number(replay.rides.first?["distance_m"]), "\(replay.rides)")
        #expect(abs(distance - ride.distance) <= 0.01 * ride.distance, "\(distance) m, the head unit's \(ride.distance) m")
    }
}
