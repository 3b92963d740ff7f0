import ArgumentParser
import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux

struct SunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sun",
        abstract: "Sunrise, sunset, solar noon and twilight for a place and day.",
        discussion: """
            The date names the local mean solar day: the UTC window [date 00:00 UTC − lon/15 h, +24 h), \
            and each event is the first one inside it (so an evening sunset west of Greenwich is often on the \
            next UTC date). Without --json, times are shown in the local time zone (TZ) with the day length. \
            Accuracy against JPL's ephemeris: a few seconds below the polar circles, under a minute above.
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("Latitude in degrees, north positive (-90 to 90).", valueName: "degrees"))
    var lat: Double

    @Option(parsing: .unconditional, help: ArgumentHelp("Longitude in degrees, east positive (-180 to 180).", valueName: "degrees"))
    var lon: Double

    @Option(help: ArgumentHelp("The day, as YYYY-MM-DD (default: today, by the system clock).", valueName: "date"))
    var date: String?

    @Flag(help: "Print JSON: status, civil_status, sunrise, sunset, solar_noon, civil_dawn, civil_dusk (ISO 8601 UTC; absent when the event does not occur).")
    var json = false

    func validate() throws {
        guard (-90...90).contains(lat) else { throw ValidationError("The value '\(lat)' is invalid for '--lat'. Use -90 to 90.") }
        guard (-180...180).contains(lon) else { throw ValidationError("The value '\(lon)' is invalid for '--lon'. Use -180 to 180.") }
        if let date, CivilDate(iso: date) == nil {
            throw ValidationError("The value '\(date)' is invalid for '--date'. Use a date such as 2026-06-21.")
        }
    }

    func run() {
        let now = SystemClock.wallClock()
        let day: CivilDate = date.flatMap(CivilDate.init(iso:))
            ?? SunCalculator.solarDay(at: now, longitude: lon)
        let result = SunCalculator.day(date: day, latitude: lat, longitude: lon)
        if json {
            var w = JSONObjectWriter()
            w.add("lat", lat, decimals: 6)
            w.add("lon", lon, decimals: 6)
            w.add("date", day.description)
            w.add("status", result.sun.status.rawValue)
            w.add("civil_status", result.civil.status.rawValue)
            if let t = result.sun.rise { w.add("sunrise", t.iso8601) }
            if let t = result.sun.set { w.add("sunset", t.iso8601) }
            if let t = result.solarNoon { w.add("solar_noon", t.iso8601) }
            if let t = result.civil.rise { w.add("civil_dawn", t.iso8601) }
            if let t = result.civil.set { w.add("civil_dusk", t.iso8601) }
            if let length = result.dayLengthSeconds { w.add("day_length_s", length, decimals: 0) }
            print(w.finish())
            return
        }
        // 12- or 24-hour as the locale reads (LC_ALL, LC_TIME, LANG); `sun` takes no config.
        let clock = GatewayConfig().displayUnits.clock
        // The zone in force on that day (MDT in June, MST in January), not today's.
        let zone = LocalTime.zoneName(at: result.solarNoon ?? SunCalculator.windowStart(date: day, longitude: lon) + 43_200)
        print("Sun at \(Self.coordinate(lat, "N", "S")), \(Self.coordinate(lon, "E", "W")) on \(day) (times in \(zone))")
        print("")
        func line(_ label: String, _ t: Timestamp?, missing: String) {
            print(label.padded(to: 16) + (t.map { LocalTime.format($0, clock: clock) } ?? missing))
        }
        let noSun = result.sun.status == .polarDay ? "— (polar day: the sun stays up)" : "— (polar night: the sun stays down)"
        let noTwilight = result.civil.status == .polarDay ? "— (it never gets darker than civil twilight)" : "— (it stays darker than civil twilight)"
        line("civil dawn", result.civil.rise, missing: result.civil.status == .setOnly ? "— (no dawn this day)" : noTwilight)
        line("sunrise", result.sun.rise, missing: result.sun.status == .setOnly ? "— (the sun does not rise this day)" : noSun)
        line("solar noon", result.solarNoon, missing: "—")
        line("sunset", result.sun.set, missing: result.sun.status == .riseOnly ? "— (the sun does not set this day)" : noSun)
        line("civil dusk", result.civil.set, missing: result.civil.status == .riseOnly ? "— (no dusk this day)" : noTwilight)
        if let length = result.dayLengthSeconds {
            let minutes = Int((length / 60).rounded())
            print("day length      \(minutes / 60) h \(minutes % 60) min")
        }
        if let altitude = result.noonAltitude {
            print("noon altitude   \(Int(altitude.rounded()))°")
        }
    }

    static func coordinate(_ value: Double, _ positive: String, _ negative: String) -> String {
        let rounded = (abs(value) * 10_000).rounded() / 10_000
        return "\(rounded)°\(value >= 0 ? positive : negative)"
    }
}
