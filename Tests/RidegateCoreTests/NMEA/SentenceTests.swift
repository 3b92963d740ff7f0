import RidegateCore
import RidegateTestSupport
import Testing

@Suite struct SentenceTests {
    func decode(_ text: String) throws -> NMEASentence {
        guard case .decoded(let s) = NMEADecoder().decode(line: Array(text.utf8)) else {
            throw DecodeFailure(line: text)
        }
        return s
    }

    struct DecodeFailure: Error { var line: String }

    @Test("RMC: position, speed in m/s, track, date; any talker")
    func rmc() throws {
        let s = try decode(NMEAText.sentence("GNRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A,V"))
        guard case .rmc(let r) = s.body else { Issue.record("not RMC"); return }
        #expect(s.talker == "GN")
        #expect(r.isValid)
        #expect(abs((r.latitude ?? 0) - 47.2852395) < 1e-7)
        #expect(abs((r.longitude ?? 0) - 8.565253667) < 1e-7)
        #expect(abs((r.speedMetersPerSecond ?? 0) - 0.004 * 1852 / 3600) < 1e-9)
        #expect(r.date == CivilDate(year: 2002, month: 12, day: 9))
        #expect(r.navigationStatus == "V")
        #expect(r.timeOfDay == 30_959.0) // 08:35:59
    }

    @Test("RMC status V is no fix")
    func rmcInvalid() throws {
        guard case .rmc(let r) = try decode(NMEAText.sentence("GPRMC,001901.00,V,,,,,,,020211,,,N")).body else { Issue.record("not RMC"); return }
        #expect(!r.isValid)
        #expect(r.latitude == nil)
    }

    @Test("GGA: southern and western hemispheres, altitude, quality 0 is no fix")
    func gga() throws {
        guard case .gga(let g) = try decode(NMEAText.sentence("GPGGA,172814.0,3723.46587704,S,12202.26957864,W,2,6,1.2,18.893,M,-25.669,M,2.0,0031")).body else {
            Issue.record("not GGA")
            return
        }
        #expect((g.latitude ?? 0) < 0 && (g.longitude ?? 0) < 0)
        #expect(g.altitudeMSL == 18.893)
        #expect(g.quality == 2 && g.isValid)
        guard case .gga(let none) = try decode(NMEAText.sentence("GPGGA,001901.00,,,,,0,00,99.99,,,,,,")).body else { Issue.record("not GGA"); return }
        #expect(!none.isValid)
    }

    @Test("VTG in the pre-2.0 layout without unit letters")
    func oldVTG() throws {
        guard case .vtg(let v) = try decode(NMEAText.sentence("GPVTG,054.7,034.4,005.5,010.2")).body else { Issue.record("not VTG"); return }
        #expect(v.trackDegrees == 54.7)
        #expect(abs((v.speedMetersPerSecond ?? 0) - 5.5 * 1852 / 3600) < 1e-9)
    }

    @Test("GNS: one mode letter per constellation; all N means no fix")
    func gns() throws {
        guard case .gns(let g) = try decode(NMEAText.sentence("GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,")).body else { Issue.record("not GNS"); return }
        #expect(g.isValid && g.satellitesUsed == 13 && g.altitudeMSL == 25.63)
        guard case .gns(let n) = try decode(NMEAText.sentence("GNGNS,014035.00,,,,,NN,00,,,,,")).body else { Issue.record("not GNS"); return }
        #expect(!n.isValid)
    }

    @Test("ZDA carries the full date; GSA the fix type and DOPs")
    func zdaAndGSA() throws {
        guard case .zda(let z) = try decode(NMEAText.sentence("GPZDA,160012.71,11,03,2004,-1,00")).body else { Issue.record("not ZDA"); return }
        #expect(z.date == CivilDate(year: 2004, month: 3, day: 11))
        guard case .gsa(let g) = try decode(NMEAText.sentence("GNGSA,A,3,80,71,73,79,69,,,,,,,,1.83,1.09,1.47,2")).body else { Issue.record("not GSA"); return }
        #expect(g.fixType == 3 && g.satellites == [80, 71, 73, 79, 69] && g.hdop == 1.09 && g.systemID == 2)
    }

    @Test("Malformed fields become nil, never values")
    func malformedFields() throws {
        guard case .rmc(let r) = try decode(NMEAText.sentence("GPRMC,25xx19,A,48x7.038,N,01131.000,Q,abc,084.4,320394,,")).body else { Issue.record("not RMC"); return }
        #expect(r.timeOfDay == nil)
        #expect(r.latitude == nil)
        #expect(r.longitude == nil)
        #expect(r.speedMetersPerSecond == nil)
        #expect(r.date == nil)
    }

    @Test("Digits finer than 1e-18 are dropped: a long run of zeros after the point is a number, not a crash (fuzz)")
    func fractionsBeyondTheTableOfPowers() throws {
        // NMEA lines are at most 120 bytes here, so two fields carry the zeros (19: one beyond the 18).
        let zeros = String(repeating: "0", count: 19)
        let line = NMEAText.sentence("GPGGA,123519.\(zeros)1,4807.038,N,01131.0,E,1,8,0.\(zeros)9,545.4\(zeros)1,M,,M,,")
        guard case .gga(let g) = try decode(line).body else { Issue.record("not GGA"); return }
        #expect(g.timeOfDay == 45_319) // 12:35:19
        #expect(g.hdop == 0)
        #expect(g.altitudeMSL == 545.4)
        guard case .gga(let tiny) = try decode(NMEAText.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.00000000000000001234,545.4,M,46.9,M,,")).body else {
            Issue.record("not GGA"); return
        }
        #expect(tiny.hdop == 12e-18)
    }
}
