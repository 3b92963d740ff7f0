import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// Every row of the ephemeris fixture (JPL DE421 via skyfield), to the issue's tolerances: 15 s below the
/// polar circles, 2 min above, and the right status on every polar transition day.
@Suite struct SunCalculatorTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var latitude: Double
        var longitude: Double
        var date: CivilDate
        var windowStart: String
        var status: String
        var civilStatus: String
        var sunrise: String
        var sunset: String
        var noon: String
        var civilDawn: String
        var civilDusk: String
        var testDescription: String { "\(name) \(latitude),\(longitude) \(date)" }
    }

    static let rows: [Row] = {
        guard let text = try? String(contentsOfFile: Fixtures.path("sun/sun_times.csv"), encoding: .utf8) else { return [] }
        // CRLF file: "\r\n" is one Character in Swift, so split on the scalar view.
        var lines = text.unicodeScalars.split { $0 == "\n" || $0 == "\r" }
            .map { String(String.UnicodeScalarView($0)).split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines.removeFirst()
        func column(_ name: String) -> Int { header.firstIndex(of: name) ?? 0 }
        return lines.compactMap { f in
            guard f.count == header.count, let date = CivilDate(iso: f[column("date")]) else { return nil }
            return Row(name: f[column("name")], latitude: Double(f[column("lat")]) ?? 0, longitude: Double(f[column("lon")]) ?? 0,
                       date: date, windowStart: f[column("window_start_utc")], status: f[column("status")],
                       civilStatus: f[column("civil_status")], sunrise: f[column("sunrise_utc")], sunset: f[column("sunset_utc")],
                       noon: f[column("solar_noon_utc")], civilDawn: f[column("civil_dawn_utc")], civilDusk: f[column("civil_dusk_utc")])
        }
    }()

    static func seconds(_ iso: String) -> Double? {
        // 2024-03-20T13:02:23.462Z
        guard iso.count >= 20, let date = CivilDate(iso: String(iso.prefix(10))) else { return nil }
        let time = iso.dropFirst(11).dropLast().split(separator: ":")
        guard time.count == 3, let h = Double(time[0]), let m = Double(time[1]), let s = Double(time[2]) else { return nil }
        return Timestamp(date: date, secondsOfDay: h * 3600 + m * 60 + s).secondsSince1970
    }

    static func band(_ latitude: Double) -> String {
        abs(latitude) >= 66.5 ? "|lat| >= 66.5" : (abs(latitude) < 45 ? "|lat| < 45" : "45 <= |lat| < 66.5")
    }

    /// Each event of a row: (name, ours, the ephemeris's text).
    static func events(_ row: Row) -> (day: SunCalculator.Day, pairs: [(String, Timestamp?, String)]) {
        let day = SunCalculator.day(date: row.date, latitude: row.latitude, longitude: row.longitude)
        return (day, [
            ("sunrise", day.sun.rise, row.sunrise), ("sunset", day.sun.set, row.sunset), ("noon", day.solarNoon, row.noon),
            ("civil dawn", day.civil.rise, row.civilDawn), ("civil dusk", day.civil.set, row.civilDusk),
        ])
    }

    @Test("The ephemeris cases are found", .referenceCorpus) func fixtureFound() {
        #expect(!Self.rows.isEmpty)
        Fixtures.report("sun cases", cases: Self.rows.count)
    }

    @Test("Every fixture row within tolerance, with the right statuses", .referenceCorpus, arguments: rows)
    func matchesEphemeris(row: Row) {
        let (day, pairs) = Self.events(row)
        #expect(day.windowStart.iso8601 == row.windowStart)
        #expect(day.sun.status.rawValue == row.status)
        #expect(day.civil.status.rawValue == row.civilStatus)
        let tolerance = abs(row.latitude) >= 66.5 ? 120.0 : 15.0
        for (event, ours, theirs) in pairs {
            let expected = Self.seconds(theirs)
            #expect((ours == nil) == (expected == nil), "\(event): ours \(ours?.iso8601 ?? "none"), ephemeris \(theirs)")
            guard let ours, let expected else { continue }
            let error = abs(ours.secondsSince1970 - expected)
            #expect(error <= tolerance, "\(event) off by \(error) s: \(ours.iso8601) vs \(theirs)")
        }
    }

    /// The accuracy docs/mqtt.md and the README state (2.9 s, 4.5 s, 31 s), with a little room: a change
    /// that makes the sun worse than documented fails here even while it is inside the wider tolerance.
    @Test("Worst error per latitude band is inside what the docs state", .referenceCorpus, arguments: [
        ("|lat| < 45", 3.5), ("45 <= |lat| < 66.5", 5.0), ("|lat| >= 66.5", 35.0),
    ])
    func documentedAccuracy(band: String, documented: Double) {
        var worst = 0.0
        var events = 0
        for row in Self.rows where Self.band(row.latitude) == band {
            for (_, ours, theirs) in Self.events(row).pairs {
                guard let ours, let expected = Self.seconds(theirs) else { continue }
                worst = max(worst, abs(ours.secondsSince1970 - expected))
                events += 1
            }
        }
        print("sun: worst error \(band): \(String(format: "%.1f", worst)) s over \(events) events")
        #expect(events >= 20, "too few events in \(band) to judge")
        #expect(worst <= documented, "\(band): worst \(worst) s, documented \(documented) s")
    }

    @Test("Denver on the June solstice: a long day, noon near 19:00 UTC")
    func denver() throws {
        let day = SunCalculator.day(date: CivilDate(year: 2026, month: 6, day: 21), latitude: 39.7392, longitude: -104.9903)
        #expect(day.sun.status == .ok)
        let length = try #require(day.dayLengthSeconds)
        #expect(length > 14.9 * 3600 && length < 15.0 * 3600)
        #expect(day.solarNoon?.iso8601.hasPrefix("2026-06-21T19:0") == true)
    }
}
