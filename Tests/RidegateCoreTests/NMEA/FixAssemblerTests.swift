import RidegateCore
import RidegateTestSupport
import Testing

@Suite struct FixAssemblerTests {
    func sentences(_ lines: [String]) -> [NMEASentence] {
        lines.compactMap {
            if case .decoded(let s) = NMEADecoder().decode(line: Array($0.utf8)) { return s }
            return nil
        }
    }

    func epoch(_ second: Int) -> [String] {
        let time = "12000\(second).00"
        return [
            NMEAText.sentence("GPGGA,\(time),4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-18.0,M,,"),
            NMEAText.sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,,,,,1.5,0.9,1.2"),
            NMEAText.sentence("GPRMC,\(time),A,4000.00000,N,10500.00000,W,10.000,90.0,210626,,,A"),
        ]
    }

    @Test("One fix per epoch, merged from every sentence; emitted on the learned cycle ender")
    func oneFixPerEpoch() {
        var assembler = FixAssembler()
        var fixes: [GPSFix] = []
        var emittedAfter: [Int] = []
        for second in 0..<4 {
            for (index, s) in sentences(epoch(second)).enumerated() {
                let out = assembler.consume(s)
                if !out.isEmpty { emittedAfter.append(second * 10 + index) }
                fixes += out
            }
        }
        #expect(fixes.count == 4)
        #expect(fixes.allSatisfy { $0.mode == .threeD && $0.altitudeMSL == 1600 && $0.hdop == 0.9 })
        #expect(abs((fixes[0].speedMetersPerSecond ?? 0) - 10 * 1852 / 3600) < 1e-9)
        #expect(fixes.map { $0.time?.iso8601 ?? "" } == (0..<4).map { "2026-06-21T12:00:0\($0).000Z" })
        // The first epoch goes out when the second starts (the cycle is unknown yet); from then on each
        // epoch goes out at its RMC, the learned cycle ender (sentence index 2), without waiting.
        #expect(emittedAfter == [10, 12, 22, 32])
    }

    @Test("A sentence that says invalid contributes no position")
    func invalidIsNoFix() {
        var assembler = FixAssembler()
        let lines = [
            NMEAText.sentence("GPGGA,001901.00,,,,,0,00,99.99,,,,,,"),
            NMEAText.sentence("GPRMC,001901.00,V,,,,,,,020211,,,N"),
            NMEAText.sentence("GPGGA,001902.00,,,,,0,00,99.99,,,,,,"),
        ]
        var fixes: [GPSFix] = []
        for s in sentences(lines) { fixes += assembler.consume(s) }
        #expect(fixes.count == 1)
        #expect(fixes[0].mode == .noFix && !fixes[0].hasPosition && fixes[0].latitude == nil)
        #expect(fixes[0].time?.iso8601 == "2011-02-02T00:19:01.000Z")
    }

    @Test("Crossing midnight without a new RMC date still advances the date")
    func midnight() {
        var assembler = FixAssembler(assumedDate: CivilDate(year: 2026, month: 6, day: 21))
        let lines = [
            NMEAText.sentence("GPGGA,235959.00,4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-18.0,M,,"),
            NMEAText.sentence("GPGGA,000000.00,4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-18.0,M,,"),
            NMEAText.sentence("GPGGA,000001.00,4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-18.0,M,,"),
        ]
        var fixes: [GPSFix] = []
        for s in sentences(lines) { fixes += assembler.consume(s) }
        #expect(fixes.map { $0.time?.iso8601 ?? "" } == ["2026-06-21T23:59:59.000Z", "2026-06-22T00:00:00.000Z", "2026-06-22T00:00:01.000Z"])
    }

    @Test("A date from before a GPS week rollover is moved forward by 1024 weeks when a floor is known")
    func weekRollover() {
        // Telit HE910 after 2019-04-06 (gpsd's april6_2019 capture): 1999-08-22 means 2019-04-07.
        let line = NMEAText.sentence("GPRMC,000231.42,A,4829.0005,N,00022.0016,E,0.16,212.28,220899,,,A")
        var live = FixAssembler(notBefore: CivilDate(year: 2019, month: 1, day: 1))
        var replay = FixAssembler()
        for s in sentences([line]) {
            _ = live.consume(s)
            _ = replay.consume(s)
        }
        #expect(live.date == CivilDate(year: 2019, month: 4, day: 7))
        #expect(live.rolloverCorrections == 1)
        #expect(replay.date == CivilDate(year: 1999, month: 8, day: 22))
        #expect(GPSWeekRollover.corrected(CivilDate(year: 2026, month: 6, day: 21), notBefore: GPSWeekRollover.releaseFloor).eras == 0)
    }

    @Test("Week rollover beyond one era, the four-era cap, and the live floor the daemon uses")
    func weekRolloverEras() {
        let real = CivilDate(year: 2026, month: 6, day: 21)
        let era = 1024 * 7
        // A receiver two rollovers behind (firmware from the 1980-1999 era) reports 1987.
        let twoBehind = CivilDate(daysSince1970: real.daysSince1970 - 2 * era)
        #expect(twoBehind.year == 1987)
        let fixed = GPSWeekRollover.corrected(twoBehind, notBefore: GPSWeekRollover.releaseFloor)
        #expect(fixed.date == real && fixed.eras == 2)
        // At most four eras: a date that far back is garbage, not a rollover.
        let absurd = CivilDate(daysSince1970: real.daysSince1970 - 6 * era)
        #expect(GPSWeekRollover.corrected(absurd, notBefore: GPSWeekRollover.releaseFloor).eras == 4)
        // A live receiver that rolled over in 2019 reports 2006 in mid-2026: the floor brings it to today.
        let oneBehind = NMEAText.sentence("GPRMC,120000.00,A,4000.0000,N,10500.0000,W,1.0,90.0,\(Self.ddmmyy(CivilDate(daysSince1970: real.daysSince1970 - era))),,,A")
        var live = FixAssembler(notBefore: GPSWeekRollover.releaseFloor)
        for s in sentences([oneBehind]) { _ = live.consume(s) }
        #expect(live.date == real && live.rolloverCorrections == 1)
        // The day before the floor is not "before a rollover": a receiver's date may lag a day at midnight.
        #expect(GPSWeekRollover.corrected(CivilDate(daysSince1970: GPSWeekRollover.releaseFloor.daysSince1970 - 1),
                                          notBefore: GPSWeekRollover.releaseFloor).eras == 0)
    }

    static func ddmmyy(_ d: CivilDate) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return two(d.day) + two(d.month) + two(d.year % 100)
    }
}
