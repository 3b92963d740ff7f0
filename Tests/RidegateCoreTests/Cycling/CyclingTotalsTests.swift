import RidegateCore
import Testing

/// The derived values a rider reads: cadence that drops to 0 when the pedals stop, power averages,
/// normalized power, work, cadence averages with and without coasting, power zones, wheel calibration.
@Suite struct CyclingTotalsTests {
    func crank(_ revolutions: Int, _ seconds: Double) -> RevolutionData {
        RevolutionData(revolutions: UInt32(revolutions), eventTime: UInt16(Int(seconds * 1024) & 0xFFFF), ticksPerSecond: 1024, counterBits: 16)
    }

    @Test("Cadence: 90 rpm while pedalling, the same event time repeated is not a new revolution, 0 after 3 s of none")
    func cadenceGoesStale() throws {
        var tracker = RevolutionTracker.crank()
        #expect(tracker.update(crank(0, 0), at: 0) == nil)  // the first reading has nothing to compare with
        #expect(abs((tracker.update(crank(1, 2.0 / 3), at: 1) ?? 0) * 60 - 90) < 0.1)
        #expect(abs((tracker.update(crank(1, 2.0 / 3), at: 2) ?? 0) * 60 - 90) < 0.1) // repeated: still 90 for now
        #expect(tracker.update(crank(1, 2.0 / 3), at: 4.5) == 0)                     // 3.5 s without a revolution
        #expect(tracker.rate(at: 10) == 0)
    }

    @Test("A reset (battery change) or a silence longer than the event-time wrap starts over: no spike, no stale rate")
    func restarts() {
        var tracker = RevolutionTracker.crank()
        tracker.update(crank(5000, 10), at: 0)
        tracker.update(crank(5001, 10.667), at: 1)
        #expect(tracker.update(crank(2, 11), at: 2) == nil)          // counter went backwards: restart
        #expect(tracker.update(crank(3, 11.667), at: 3) != nil)      // and rates again from there
        #expect(tracker.update(crank(100, 30), at: 3 + 70) == nil)   // 70 s unheard: the 64 s event time wrapped
    }

    @Test("Power averages: 3 s and 10 s, time-weighted, over uneven notifications")
    func averages() throws {
        var p = PowerAverages()
        for t in 0..<10 { p.add(watts: 200, at: Double(t)) }
        p.add(watts: 400, at: 10)
        p.add(watts: 400, at: 10.5)
        p.add(watts: 400, at: 11)
        // At the last reading's arrival, which the averages include: each reading stands for the time since the one before.
        let three: Double = try #require(p.average(over: 3, at: 11))
        let ten: Double = try #require(p.average(over: 10, at: 11))
        let expectedThree: Double = (200.0 * 1 + 400.0 * 2) / 3
        let expectedTen: Double = (200.0 * 8 + 400.0 * 2) / 10
        #expect(abs(three - expectedThree) < 1e-9)
        #expect(abs(ten - expectedTen) < 1e-9)
        #expect(PowerAverages().average(over: 3, at: 0) == nil)
    }

    @Test("Ride totals: work, average and maximum power, normalized power above average for an uneven ride")
    func rideTotals() throws {
        var steady = RidePowerTotals()
        for t in 0...600 { steady.add(watts: 200, cadenceRPM: 90, at: Double(t), time: Timestamp(secondsSince1970: Double(t))) }
        #expect(abs(steady.workKilojoules - 120) < 1e-9)  // 200 W for 600 s
        #expect(steady.averageWatts == 200 && steady.maximumWatts == 200)
        #expect(abs(try #require(steady.normalizedWatts) - 200) < 1e-9)
        // Alternating minutes at 100 and 300 W: the same average, a higher normalized power.
        var uneven = RidePowerTotals()
        for t in 0...600 {
            uneven.add(watts: (t / 60) % 2 == 0 ? 100 : 300, cadenceRPM: nil, at: Double(t), time: Timestamp(secondsSince1970: Double(t)))
        }
        #expect(abs(try #require(uneven.averageWatts) - 200) < 1)
        #expect(try #require(uneven.normalizedWatts) > 220)
        #expect(uneven.maximumWatts == 300)
        #expect(RidePowerTotals().normalizedWatts == nil)
    }

    @Test("Average cadence with and without coasting; a sensor gap is not time at the last value")
    func cadenceAverages() throws {
        var totals = RidePowerTotals()
        var t = 0.0
        for _ in 0..<60 { totals.add(watts: 200, cadenceRPM: 90, at: t, time: Timestamp(secondsSince1970: t)); t += 1 }
        for _ in 0..<60 { totals.add(watts: 0, cadenceRPM: 0, at: t, time: Timestamp(secondsSince1970: t)); t += 1 }
        #expect(abs(try #require(totals.averageCadenceRPM) - 45) < 1)
        #expect(abs(try #require(totals.averagePedallingCadenceRPM) - 90) < 1e-9)
        let before = totals.seconds
        totals.add(watts: 0, cadenceRPM: 0, at: t + 600, time: Timestamp(secondsSince1970: t + 600)) // ten minutes unheard
        #expect(totals.seconds - before == RidePowerTotals.maximumGap)
    }

    @Test("Power zones: Coggan's seven levels from FTP, the zone shown and the time in each")
    func powerZones() {
        let zones = ZoneBoundaries.power(ftp: 250)
        #expect(zones.lowerBounds == [1, 140, 190, 228, 265, 303, 378])
        #expect(zones.zone(for: 0) == 0 && zones.zone(for: 139) == 1 && zones.zone(for: 250) == 4 && zones.zone(for: 400) == 7)
        var shown = ZoneTracker(zones: zones, margin: 5, dwellSeconds: 3)
        var time = ZoneTime(zones: zones)
        for t in 0..<60 {
            shown.update(value: 250, at: Timestamp(secondsSince1970: Double(t)))
            time.add(value: 250, at: Double(t))
        }
        #expect(shown.zone == 4)
        #expect(time.seconds[4] == 59)
    }

    @Test("Wheel calibration against a known ride: a 2096 mm tyre found within 0.5 %, bad fixes left out")
    func wheelCalibration() throws {
        var calibration = WheelCalibration()
        let circumference = 2.096
        // 150 one-second steps at 6-9 m/s with good fixes; GPS distance carries ±0.5 m of noise.
        for step in 0..<150 {
            let metres = 6 + Double(step % 4)
            let noise = step % 2 == 0 ? 0.5 : -0.5
            calibration.add(gpsMetres: metres + noise, wheelRevolutions: metres / circumference, hdop: 0.9, speed: metres)
        }
        // Bad steps that would pull it off if counted, each plausible on its own (2.45 m a revolution): poor fixes
        // (multipath under trees), and creeping at a light, where GPS distance is mostly jitter.
        for _ in 0..<100 { calibration.add(gpsMetres: 10, wheelRevolutions: 10 / 2.45, hdop: 5, speed: 8) }
        for _ in 0..<100 { calibration.add(gpsMetres: 2, wheelRevolutions: 2 / 2.45, hdop: 0.9, speed: 0.5) }
        // And one with a missed sensor reading: 8 m for one revolution is no wheel at all.
        calibration.add(gpsMetres: 8, wheelRevolutions: 1, hdop: 0.9, speed: 8)
        let estimate = try #require(calibration.estimateMillimetres)
        #expect(abs(estimate - 2096) / 2096 < 0.005, "estimate \(estimate) mm")
        var short = WheelCalibration()
        short.add(gpsMetres: 100, wheelRevolutions: 100 / circumference, hdop: 0.9, speed: 8)
        #expect(short.estimateMillimetres == nil) // not enough distance yet
    }
}
