import RidegateCore
import Testing

@Suite struct RideTrackerTests {
    /// A small deterministic generator, so the jitter is the same on every run.
    struct Noise {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
    }

    func fix(_ lat: Double, _ lon: Double, _ t: Double, speed: Double?) -> GPSFix {
        GPSFix(time: Timestamp(secondsSince1970: 1_700_000_000 + t), mode: .threeD, latitude: lat, longitude: lon,
               speedMetersPerSecond: speed)
    }

    @Test("Ten minutes standing still under jitter add under 5 m; the moving part is within 1 % of the truth")
    func standingStillDoesNotCount() {
        var tracker = RideTracker(autoPauseSpeed: 1.0)
        var noise = Noise()
        let metersPerDegree = 111_195.0
        var t = 0.0
        var north = 0.0 // metres along a straight road going north
        var truth = 0.0
        func jittered(_ n: Double, _ amplitude: Double) -> (Double, Double) {
            (40 + (n + amplitude * noise.next()) / metersPerDegree, -105 + amplitude * noise.next() / 85_000)
        }
        for _ in 0..<300 { // 5 minutes at 6 m/s
            north += 6; truth += 6; t += 1
            let (la, lo) = jittered(north, 1.0)
            tracker.add(fix(la, lo, t, speed: 6 + 0.1 * noise.next()))
        }
        let beforeStop = tracker.summary.distanceMeters
        for _ in 0..<600 { // 10 minutes stopped: 3 m position jitter, Doppler speed near zero
            t += 1
            let (la, lo) = jittered(north, 3.0)
            tracker.add(fix(la, lo, t, speed: abs(0.3 * noise.next())))
        }
        #expect(tracker.summary.distanceMeters - beforeStop < 5)
        for _ in 0..<300 {
            north += 6; truth += 6; t += 1
            let (la, lo) = jittered(north, 1.0)
            tracker.add(fix(la, lo, t, speed: 6 + 0.1 * noise.next()))
        }
        #expect(abs(tracker.summary.distanceMeters - truth) / truth < 0.01)
        #expect(abs(tracker.summary.movingSeconds - 600) <= 2)
        #expect(tracker.summary.elapsedSeconds == 1199)
    }

    @Test("Without speed over ground, speed is derived from the positions")
    func derivedSpeed() {
        var tracker = RideTracker()
        tracker.add(fix(40, -105, 0, speed: nil))
        tracker.add(fix(40 + 10 / 111_195.0, -105, 2, speed: nil))
        #expect(abs((tracker.summary.speedMetersPerSecond ?? 0) - 5) < 0.01)
    }

    @Test("Fixes without a position or time, and repeated epochs, are ignored")
    func ignoresUnusable() {
        var tracker = RideTracker()
        tracker.add(GPSFix(mode: .noFix))
        tracker.add(fix(40, -105, 5, speed: 5))
        tracker.add(fix(40.1, -105, 5, speed: 5))
        #expect(tracker.summary.distanceMeters == 0)
    }
}
