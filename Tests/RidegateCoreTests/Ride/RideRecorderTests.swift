import RidegateCore
import Testing

/// What the ride log gets from the core before the GPS has a fix: a Pi without an RTC starts with a stale system
/// clock, so points from the sensors wait for GPS time and are dated from it.
@Suite struct RideRecorderTests {
    /// GPS time of the first fix: 2026-06-21 16:00:10 UTC.
    static let fixTime = 1_782_057_610.0
    /// The Pi's clock at boot, months behind (no RTC, no network yet).
    static let staleSystem = 1_767_225_600.0

    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: Self.staleSystem + s)) }

    static func points(_ effects: [Effect]) -> [RidePoint] { effects.compactMap { if case .record(.point(let p)) = $0 { p } else { nil } } }

    @Test("Sensor points before the first fix wait for GPS time, then go to the ride log dated from it, in order, none twice")
    func heldUntilTheFix() {
        var c = GatewayCore(settings: GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90])))
        var early: [RidePoint] = []
        for s in 0..<10 {
            early += Self.points(c.handle(.sensorMeasurement(.strap("s1"),
                                                             .heartRate(HeartRateMeasurement(beatsPerMinute: 120 + s)), at: at(Double(s) + 0.5))))
        }
        #expect(early.isEmpty, "points dated by a stale clock reached the ride log: \(early.map(\.time))")
        // The time reference is established by three agreeing epochs (at 10, 11, 12 s); the held points then go out.
        var points: [RidePoint] = []
        for s in 0..<3 {
            let fix = GPSFix(time: Timestamp(secondsSince1970: Self.fixTime + Double(s)), mode: .threeD, latitude: 40, longitude: -105,
                             speedMetersPerSecond: 0, hdop: 0.9)
            points += Self.points(c.handle(.gpsFix(fix, at: at(10 + Double(s)))))
            // The strap goes on while the first fixes wait: those seconds are the fixes' own points.
            points += Self.points(c.handle(.sensorMeasurement(.strap("s1"),
                                                              .heartRate(HeartRateMeasurement(beatsPerMinute: 130)), at: at(10.5 + Double(s)))))
        }
        // Ten held points, each dated from the fixes back along the monotonic clock, then the three fixes' own.
        let expectedTimes = (0..<10).map { Self.fixTime - 10 + Double($0) + 0.5 } + [0.0, 1, 2].map { Self.fixTime + $0 }
        #expect(points.map(\.time.secondsSince1970) == expectedTimes)
        let heartRates: [Int?] = (0..<10).map { 120 + $0 }
        #expect(Array(points.prefix(10).map(\.heartRate)) == heartRates)
        #expect(points.suffix(3).allSatisfy { $0.latitude == 40 })
    }

    @Test("Fixes read late, in a burst: the held points come before the first fix, never after it (the ride would split)")
    func burstOfFirstFixes() {
        var c = GatewayCore(settings: GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90])))
        var points: [RidePoint] = []
        for s in 0..<10 {
            points += Self.points(c.handle(.sensorMeasurement(.strap("s1"),
                                                              .heartRate(HeartRateMeasurement(beatsPerMinute: 120)), at: at(Double(s) * 0.5))))
        }
        // A busy process reads three seconds of fixes at once: the reference, taken at the last, dates the
        // strap's points up to two seconds later than they came.
        for s in 0..<3 {
            let fix = GPSFix(time: Timestamp(secondsSince1970: Self.fixTime + Double(s)), mode: .threeD, latitude: 40, longitude: -105,
                             speedMetersPerSecond: 0, hdop: 0.9)
            points += Self.points(c.handle(.gpsFix(fix, at: at(5 + Double(s) * 0.01))))
        }
        // Held from 0 to 4.5 s, dated 3.02 s before the first fix to 1.48 s after it: those after it go.
        let times = points.map(\.time.secondsSince1970)
        #expect(times == times.sorted() && times.count == 3 + 4, "\(times.map { $0 - Self.fixTime })")
        #expect(times.suffix(3) == [0.0, 1, 2].map { Self.fixTime + $0 })
    }

    @Test("Without a GPS configured the sensors' points go to the ride log at once, on the system clock")
    func noGPSNoWait() {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]))
        settings.gpsEnabled = false
        var c = GatewayCore(settings: settings)
        let points = Self.points(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 130)), at: at(0.5))))
        #expect(points.map(\.time.secondsSince1970) == [Self.staleSystem + 0.5])
    }

    @Test("Points still waiting at an orderly stop (the fix never came) go to the ride log on the system clock")
    func flushedAtStop() {
        var c = GatewayCore(settings: GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90])))
        for s in 0..<3 { _ = c.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 120)), at: at(Double(s)))) }
        let points = Self.points(c.shutdownEffects(at: at(3)))
        #expect(points.map(\.time.secondsSince1970) == [0, 1, 2].map { Self.staleSystem + $0 })
    }
}
