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

    /// Riding north at `speed` for `seconds`, one fix a second, from `north` metres at `t`.
    func ride(_ tracker: inout RideTracker, north: inout Double, t: inout Double, seconds: Int, speed: Double) {
        for _ in 0..<seconds {
            north += speed; t += 1
            tracker.add(fix(40 + north / 111_195, -105, t, speed: speed))
        }
    }

    @Test("A gap while the rider stood (no fixes for 30–120 s, the position 30–50 m off when they return): no distance added")
    func pausedGapAddsNothing() {
        var tracker = RideTracker(autoPauseSpeed: 1.0)
        var north = 0.0, t = 0.0
        ride(&tracker, north: &north, t: &t, seconds: 120, speed: 7)
        for (seconds, drift) in [(30.0, 50.0), (60, 40), (120, 30), (45, 45)] {
            let before = tracker.summary.distanceMeters
            t += seconds
            north += drift // drifted while standing: not ridden
            tracker.add(fix(40 + north / 111_195, -105, t, speed: 1.5))
            #expect(tracker.summary.distanceMeters - before < 1, "a \(seconds) s gap added \(tracker.summary.distanceMeters - before) m")
            ride(&tracker, north: &north, t: &t, seconds: 60, speed: 7)
        }
        #expect(tracker.summary.movingSeconds == 359) // the first fix has no second before it
    }

    /// Riding at `speed` for two minutes, then no fix for `seconds`, then one `metres` further north: the tracker
    /// and what the gap added.
    func acrossGap(seconds: Double, metres: Double, speed: Double) -> (tracker: RideTracker, added: Double) {
        var tracker = RideTracker(autoPauseSpeed: 1.0)
        var north = 0.0, t = 0.0
        ride(&tracker, north: &north, t: &t, seconds: 120, speed: speed)
        let before = tracker.summary.distanceMeters
        tracker.add(fix(40 + (north + metres) / 111_195, -105, t + seconds, speed: speed))
        return (tracker, tracker.summary.distanceMeters - before)
    }

    @Test("A tunnel (no fixes for a minute, the position a minute's riding further on): the line across it counts, its time does not")
    func tunnelCounts() {
        let (tracker, added) = acrossGap(seconds: 60, metres: 470, speed: 8)
        #expect(abs(added - 470) < 5)
        #expect(tracker.summary.movingSeconds == 119)
    }

    @Test("Across a gap, a jump faster than riding (a fix 5 km away a minute later) adds nothing")
    func jumpAcrossGapAddsNothing() {
        #expect(acrossGap(seconds: 60, metres: 5000, speed: 8).added == 0)
    }
}
