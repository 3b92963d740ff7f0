import RidegateCore
import Testing

/// Elevation gain and loss from noisy GPS altitude, heart-rate totals, and ride names.
@Suite struct RideTotalsTests {
    func time(_ t: Double) -> Timestamp { Timestamp(secondsSince1970: Self.day + t) }

    @Test("Standing still with ±3 m of GPS altitude noise at 10 Hz adds no climbing; a 50 m climb and descent count as about 50 m each")
    func elevationNoiseAndClimb() {
        var still = ElevationTotals()
        var seed: UInt32 = 7
        for step in 0..<6000 { // ten minutes at 10 Hz
            seed = seed &* 1_103_515_245 &+ 12345
            let noise = Double(seed >> 16 % 601) / 100 - 3
            still.add(altitude: 500 + noise, hdop: 0.9, at: time(Double(step) / 10))
        }
        #expect(still.gainMeters == 0 && still.lossMeters == 0, "\(still)")

        var hill = ElevationTotals()
        for second in 0...600 { // up 50 m in 5 minutes, down again, with noise
            let t = Double(second)
            let altitude = (t <= 300 ? t / 6 : (600 - t) / 6) + (second % 2 == 0 ? 2 : -2)
            hill.add(altitude: 100 + altitude, hdop: 1.2, at: time(t))
        }
        #expect(abs(hill.gainMeters - 50) < 8 && abs(hill.lossMeters - 50) < 8, "\(hill.gainMeters) up, \(hill.lossMeters) down")
    }

    @Test("Fixes without altitude, with a poor HDOP, repeated or impossible, are skipped")
    func elevationSkips() {
        var totals = ElevationTotals()
        totals.add(altitude: 100, hdop: 1, at: time(0))
        totals.add(altitude: nil, hdop: 1, at: time(1))
        totals.add(altitude: 400, hdop: 9, at: time(2))  // HDOP 9: a guess
        totals.add(altitude: .nan, hdop: 1, at: time(3))
        totals.add(altitude: 1e9, hdop: 1, at: time(4))
        totals.add(altitude: 300, hdop: 1, at: time(0)) // back in time
        #expect(totals.gainMeters == 0 && totals.lossMeters == 0)
        totals.add(altitude: 130, hdop: 1, at: time(60)) // a long gap: the new altitude takes over
        #expect(totals.gainMeters == 30)
    }

    @Test("Heart rate: average and maximum over readings; zero and impossible readings are not counted")
    func heartRate() {
        var totals = HeartRateTotals()
        #expect(totals.average == nil && totals.maximum == nil)
        for bpm in [120, 130, 0, 140, 400] { totals.add(bpm) }
        #expect(totals.average == 130 && totals.maximum == 140)
    }

    struct NameCase: Sendable, CustomStringConvertible {
        var start: Double
        var latitude: Double
        var longitude: Double
        var expected: String
        var description: String { expected }
    }

    static let day: Double = 1_782_000_000 // 2026-06-21 00:00 UTC
    static let nameCases: [NameCase] = [
        NameCase(start: day + 7 * 3600, latitude: 52.52, longitude: 13.405, expected: "Morning ride 2026-06-21 near 52.52° N 13.41° E"), // Berlin, 07:54 solar
        NameCase(start: day + 1 * 3600, latitude: 39.74, longitude: -104.99, expected: "Evening ride 2026-06-20 near 39.74° N 104.99° W"), // Denver, 18:00 the day before
        NameCase(start: day + 13 * 3600, latitude: -33.87, longitude: 151.21, expected: "Night ride 2026-06-21 near 33.87° S 151.21° E"), // Sydney, 23:05
        NameCase(start: day + 12 * 3600, latitude: 0.004, longitude: 0, expected: "Afternoon ride 2026-06-21 near 0.00° N 0.00° E"),
    ]

    @Test("A ride is named by the sun's time of day and date at its start, and a rounded place", arguments: nameCases)
    func names(_ c: NameCase) {
        #expect(RideName.make(start: Timestamp(secondsSince1970: c.start), latitude: c.latitude, longitude: c.longitude) == c.expected)
    }

    @Test("A ride that starts inside a privacy zone is named without its place; outside one, with it")
    func nameHidesAPrivacyZone() {
        let zones = PrivacyZones([.init(name: "home", latitude: 52.52, longitude: 13.405, radiusMeters: 400)])
        let start = Timestamp(secondsSince1970: Self.day + 7 * 3600)
        #expect(RideName.make(start: start, latitude: 52.521, longitude: 13.405, hiding: zones) == "Morning ride 2026-06-21")
        #expect(RideName.make(start: start, latitude: 52.53, longitude: 13.405, hiding: zones) == "Morning ride 2026-06-21 near 52.53° N 13.41° E")
    }

    @Test("File names sort by start time (UTC) and carry the ride's id")
    func fileNames() {
        #expect(RideFileFormat.fileName(start: time(7 * 3600 + 12 * 60 + 5), id: 3, format: .fit) == "2026-06-21-0712-ride-3.fit")
        #expect(RideFileFormat.allCases.map(\.fileExtension) == ["fit", "gpx", "tcx"])
    }
}
