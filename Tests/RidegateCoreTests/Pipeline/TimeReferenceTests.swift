import RidegateCore
import Testing

/// GPS time is judged epoch by epoch: a receiver's wrong date (a year ahead, a year back, a week-rollover bug)
/// moves no clock, splits no ride, freezes no distance and deletes no points.
@Suite struct TimeReferenceTests {
    /// 2026-06-21 16:00:00 UTC.
    static let start = 1_782_057_600.0
    static let year = 365 * 86_400.0

    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: 1_000 + s)) }

    func fix(_ gpsTime: Double, _ s: Double) -> GPSFix {
        GPSFix(time: Timestamp(secondsSince1970: gpsTime), mode: .threeD, latitude: 40 + s * 10 / 111_195, longitude: -105,
               speedMetersPerSecond: 10, hdop: 0.9)
    }

    func accepted(_ verdict: TimeReference.Verdict) -> [Double] {
        guard case .accept(let epochs, _) = verdict else { return [] }
        return epochs.compactMap { $0.fix.time?.secondsSince1970 }
    }

    @Test("Three epochs agreeing along the monotonic clock establish GPS time, and count together; a wrong first date establishes nothing")
    func establishing() {
        var t = TimeReference()
        // A cold start's first epoch a year ahead, then the right time.
        #expect(accepted(t.admit(fix(Self.start + Self.year, 0), at: at(0))).isEmpty)
        #expect(accepted(t.admit(fix(Self.start + 1, 1), at: at(1))).isEmpty && !t.isTrusted)
        #expect(accepted(t.admit(fix(Self.start + 2, 2), at: at(2))).isEmpty && !t.isTrusted)
        #expect(accepted(t.admit(fix(Self.start + 3, 3), at: at(3))) == [1, 2, 3].map { Self.start + $0 })
        #expect(t.isTrusted && t.utc(for: at(10)).secondsSince1970 == Self.start + 10)
        // A fix without a position has no time to judge.
        guard case .untimed = t.admit(GPSFix(time: Timestamp(secondsSince1970: 0), mode: .noFix), at: at(11)) else {
            Issue.record("a fix without a position was judged")
            return
        }
    }

    @Test("Once established: an epoch a year ahead or behind is rejected and counted; the clock stays; one read late counts without moving it")
    func glitchesRejected() {
        var t = TimeReference()
        for s in 0..<3 { _ = t.admit(fix(Self.start + Double(s), Double(s)), at: at(Double(s))) }
        guard case .reject(let ahead) = t.admit(fix(Self.start + 3 + Self.year, 3), at: at(3)) else { Issue.record("a year ahead accepted"); return }
        #expect(ahead == Self.year)
        guard case .reject = t.admit(fix(Self.start + 4 - Self.year, 4), at: at(4)) else { Issue.record("a year back accepted"); return }
        #expect(t.rejectedEpochs == 2 && t.utc(for: at(5)).secondsSince1970 == Self.start + 5)
        // Read 4 s late (its lines waited in the tty while the process was busy): its own time, the clock unmoved.
        #expect(accepted(t.admit(fix(Self.start + 5, 5), at: at(9))) == [Self.start + 5])
        #expect(t.utc(for: at(10)).secondsSince1970 == Self.start + 10)
        #expect(accepted(t.admit(fix(Self.start + 10, 10), at: at(10))) == [Self.start + 10])
    }

    @Test("A date off by whole 1024-week eras from the established time is a week-rollover victim: corrected, not rejected")
    func rolloverAgainstTheReference() {
        var t = TimeReference()
        for s in 0..<3 { _ = t.admit(fix(Self.start + Double(s), Double(s)), at: at(Double(s))) }
        let era = 1024 * 7 * 86_400.0
        #expect(accepted(t.admit(fix(Self.start + 3 - era, 3), at: at(3))) == [Self.start + 3])
        #expect(t.rejectedEpochs == 0)
    }

    @Test("A receiver that stays off the reference for 30 s, every epoch agreeing, is followed: one step, counted")
    func persistentStepFollowed() {
        var t = TimeReference()
        for s in 0..<3 { _ = t.admit(fix(Self.start + Double(s), Double(s)), at: at(Double(s))) }
        // The receiver's UTC moves 18 s (it learnt the leap seconds) and stays there.
        var stepped: Double?
        for s in 3...40 {
            if case .accept(_, let step) = t.admit(fix(Self.start + Double(s) + 18, Double(s)), at: at(Double(s))), let step { stepped = step }
        }
        #expect(stepped == 18 && t.steps == 1)
        #expect(t.utc(for: at(41)).secondsSince1970 == Self.start + 41 + 18)
    }

    @Test("A ride with an epoch a year ahead and one a year back (taken for a rollover, 2045) in the middle: distance, elapsed time and the ride log are untouched")
    func glitchMidRide() throws {
        var c = GatewayCore(settings: GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90])))
        let decoder = NMEADecoder()
        var assembler = FixAssembler(notBefore: GPSWeekRollover.releaseFloor)
        var points: [RidePoint] = []
        var logged: [LogRecord] = []
        for s in 0..<120 {
            var time = Self.start + Double(s)
            if s == 40 { time += Self.year }
            if s == 80 { time -= Self.year } // 2025: before the floor, so the assembler moves it 1024 weeks on
            let lat = 40 + Double(s) * 10 / 111_195
            for sentence in [NMEASentenceWriter.gga(time: Timestamp(secondsSince1970: time), latitude: lat, longitude: -105, altitude: 1600),
                             NMEASentenceWriter.rmc(time: Timestamp(secondsSince1970: time), latitude: lat, longitude: -105, speed: 10, course: 0)] {
                guard case .decoded(let decoded) = decoder.decode(line: Array(sentence.utf8)) else { continue }
                for fix in assembler.consume(decoded) {
                    for effect in c.handle(.gpsFix(fix, at: at(Double(s)))) {
                        if case .record(.point(let p)) = effect { points.append(p) }
                        if case .log(let record) = effect { logged.append(record) }
                    }
                }
            }
        }
        let summary = c.rideTotals.ride
        #expect(abs(summary.distanceMeters - 1180) < 15, "distance \(summary.distanceMeters)")
        #expect(summary.elapsedSeconds < 120)
        #expect(c.timeReference.rejectedEpochs == 2)
        // Every point in order, within the ride's two minutes; none from the glitches.
        #expect(points.count >= 115 && zip(points, points.dropFirst()).allSatisfy { $0.time < $1.time })
        #expect(points.allSatisfy { $0.time.secondsSince1970 >= Self.start && $0.time.secondsSince1970 < Self.start + 120 })
        // Said the first time; a repeat within the minute is counted for the next line.
        #expect(logged.count == 1 && logged.allSatisfy { $0.message.contains("off the established GPS time") })
        let health = c.shutdownEffects(at: at(121)).compactMap { if case .publish(let p) = $0, p.topic == "health" { p.payload } else { nil } }
        #expect(health.first?.contains(#""gps_time_rejected":2,"gps_time_steps":0"#) == true, "\(health)")
    }
}
