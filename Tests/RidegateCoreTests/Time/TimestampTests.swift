import RidegateCore
import Testing

@Suite struct TimestampTests {
    @Test("Civil dates round-trip through days since 1970 across centuries and leap days",
          arguments: [(1970, 1, 1, 0), (2000, 2, 29, 11_016), (1999, 12, 31, 10_956), (2038, 1, 19, 24_855), (1900, 3, 1, -25_508)])
    func civilDates(year: Int, month: Int, day: Int, days: Int) {
        let date = CivilDate(year: year, month: month, day: day)
        #expect(date.daysSince1970 == days)
        #expect(CivilDate(daysSince1970: days) == date)
    }

    @Test("Impossible dates are refused")
    func invalidDates() {
        #expect(CivilDate(validatingYear: 2023, month: 2, day: 29) == nil)
        #expect(CivilDate(validatingYear: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(validatingYear: 2024, month: 13, day: 1) == nil)
        #expect(CivilDate(iso: "2024-04-31") == nil)
        #expect(CivilDate(iso: "2024-04-30")?.description == "2024-04-30")
    }

    @Test("ISO 8601 with milliseconds, truncated not rounded up into the next second")
    func iso8601() {
        #expect(Timestamp(secondsSince1970: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(secondsSince1970: 1_782_057_600.4567).iso8601 == "2026-06-21T16:00:00.456Z")
        #expect(Timestamp(secondsSince1970: 86_399.9999).iso8601 == "1970-01-01T23:59:59.999Z")
        #expect(Timestamp(secondsSince1970: -0.5).iso8601 == "1969-12-31T23:59:59.500Z")
        // The last four-digit year, and past it (written another way): the same shape either side.
        #expect(Timestamp(secondsSince1970: 253_402_300_799.999).iso8601 == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp(secondsSince1970: 253_402_300_800).iso8601 == "10000-01-01T00:00:00.000Z")
        #expect(Timestamp(secondsSince1970: -62_167_219_200.25).iso8601 == "-0001-12-31T23:59:59.750Z")
    }
}
