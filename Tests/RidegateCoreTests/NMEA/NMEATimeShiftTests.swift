import RidegateCore
import RidegateTestSupport
import Testing

/// A recorded ride moved to another moment: times and dates move together, the checksum is right again,
/// everything else is as recorded.
@Suite struct NMEATimeShiftTests {
    func shifted(_ body: String, by seconds: Int) -> String {
        String(decoding: NMEATimeShift(seconds: seconds).apply(to: Array(NMEAText.sentence(body).utf8)[...]), as: UTF8.self)
    }

    @Test("RMC: time and date move together across midnight, a month's and a year's end; the rest is untouched")
    func rmc() {
        #expect(shifted("GPRMC,235959.50,A,4000.89995,N,10516.23015,W,0.596,276.63,311226,,,A", by: 1)
                == NMEAText.sentence("GPRMC,000000.50,A,4000.89995,N,10516.23015,W,0.596,276.63,010127,,,A"))
        #expect(shifted("GPRMC,160000.00,A,4000.89995,N,10516.23015,W,0.596,276.63,210626,,,A", by: 157 * 86_400 + 3 * 3600 + 55 * 60)
                == NMEAText.sentence("GPRMC,195500.00,A,4000.89995,N,10516.23015,W,0.596,276.63,251126,,,A"))
        #expect(shifted("GPRMC,000010,A,4000.89995,N,10516.23015,W,0.596,276.63,010326,,,A", by: -20)
                == NMEAText.sentence("GPRMC,235950,A,4000.89995,N,10516.23015,W,0.596,276.63,280226,,,A"))
    }

    @Test("Time-only sentences (GGA, GLL, GNS) wrap at midnight; ZDA carries a four-digit year")
    func timeOnly() {
        #expect(shifted("GPGGA,235959.00,4000.89995,N,10516.23015,W,1,09,0.9,1654.9,M,-21.5,M,,", by: 2)
                == NMEAText.sentence("GPGGA,000001.00,4000.89995,N,10516.23015,W,1,09,0.9,1654.9,M,-21.5,M,,"))
        #expect(shifted("GPGLL,4000.89995,N,10516.23015,W,120000.00,A,A", by: 3600) == NMEAText.sentence("GPGLL,4000.89995,N,10516.23015,W,130000.00,A,A"))
        #expect(shifted("GNGNS,000001.00,4000.89995,N,10516.23015,W,AN,12,0.8,1654.9,-21.5,,", by: -2)
                == NMEAText.sentence("GNGNS,235959.00,4000.89995,N,10516.23015,W,AN,12,0.8,1654.9,-21.5,,"))
        #expect(shifted("GPZDA,235959.00,31,12,2026,00,00", by: 1) == NMEAText.sentence("GPZDA,000000.00,01,01,2027,00,00"))
    }

    @Test("Sentences without a time, an empty time field, a line that does not frame: as they were")
    func untouched() {
        for line in [NMEAText.sentence("GPGSA,A,3,01,02,03,,,,,,,,,,1.5,0.9,1.2"), NMEAText.sentence("GPRMC,,V,,,,,,,,,,N"),
                     "$GPRMC,160000.00,A,4000.89995,N,10516.23015,W,0.596,276.63,210626,,,A*00", "not nmea"] {
            #expect(String(decoding: NMEATimeShift(seconds: 86_400).apply(to: Array(line.utf8)[...]), as: UTF8.self) == line)
        }
    }

    @Test("The shift between two moments is whole seconds, the recording's fraction kept")
    func between() {
        let recorded = Timestamp(secondsSince1970: 1_782_057_600) // 2026-06-21T16:00:00Z
        #expect(NMEATimeShift(from: recorded, to: recorded + 86_400.4).seconds == 86_400)
        #expect(NMEATimeShift(from: recorded, to: recorded + -3.6).seconds == -4)
    }
}
