import RidegateCore
import Testing

/// The lap button's presses and the laps they and auto-lap make: in the ride log, on MQTT, on the LED.
@Suite struct LapTests {
    @Test("Presses: short and long by how long the button was held; the contact's bounce at press and release ignored")
    func presses() {
        var b = ButtonPresses(longPress: 2, debounce: 0.03)
        // A short press with bounce on the way down and on the way up.
        #expect(b.edge(pressed: true, at: 10.000) == nil)
        #expect(b.edge(pressed: false, at: 10.004) == nil) // bounce while pressing
        #expect(b.edge(pressed: true, at: 10.006) == nil)
        #expect(b.edge(pressed: false, at: 10.300) == .short)
        #expect(b.edge(pressed: true, at: 10.305) == nil) // bounce after the release: not a new press
        #expect(b.edge(pressed: false, at: 10.307) == nil)
        // Held 2.5 s: long.
        #expect(b.edge(pressed: true, at: 20) == nil)
        #expect(b.edge(pressed: false, at: 22.5) == .long)
        // A release with no press before it (the button held at start): nothing.
        #expect(b.edge(pressed: false, at: 30) == nil)
    }

    func core(autoLapKm: Double? = nil) -> GatewayCore {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 0)
        settings.autoLapMeters = autoLapKm.map { $0 * 1000 }
        settings.rideSummaryInterval = 1e9
        return GatewayCore(settings: settings)
    }

    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: 1_782_057_600 + s)) }

    /// `seconds` of GPS at 10 m/s due north, from `from`.
    func ride(_ c: inout GatewayCore, from: Int, seconds: Int) -> [Effect] {
        (from..<(from + seconds)).flatMap { s in
            c.handle(.gpsFix(GPSFix(time: Timestamp(secondsSince1970: 1_782_057_600 + Double(s)), mode: .threeD,
                        latitude: 40 + Double(s) * 10 / 111_195, longitude: -105, speedMetersPerSecond: 10, hdop: 0.9), at: at(Double(s))))
        }
    }

    static func laps(_ effects: [Effect]) -> [LapMark] { effects.compactMap { if case .record(.lap(let m)) = $0 { m } else { nil } } }
    static func announcements(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .publish(let p) = $0, p.topic == "lap" { p.payload } else { nil } }
    }

    @Test("The demo's recording played to its end: the end in the ride log, and a reading still in flight after it makes no point; after a long press one does (the next ride)")
    func recordingEndedRecordsNothingAfter() {
        let strap = HeartRateMeasurement(beatsPerMinute: 130, sensorContact: .detected)
        func points(_ effects: [Effect]) -> Int { effects.filter { if case .record(.point) = $0 { true } else { false } }.count }
        var c = core()
        _ = ride(&c, from: 0, seconds: 30)
        let ended = c.handle(.recordingEnded(at: at(30)))
        #expect(ended.contains { if case .record(.end) = $0 { true } else { false } })
        // Five seconds without a fix: a sensor reading would stand for a point of its own (a tunnel).
        _ = c.handle(.gpsState(.noFix, at: at(31)))
        #expect(points(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(strap), at: at(35)))) == 0)
        var rider = core()
        _ = ride(&rider, from: 0, seconds: 30)
        _ = rider.handle(.lapButton(.long, at: at(30)))
        _ = rider.handle(.gpsState(.noFix, at: at(31)))
        #expect(points(rider.handle(.sensorMeasurement(.strap("s1"), .heartRate(strap), at: at(35)))) == 1)
    }

    @Test("A short press marks a lap: in the ride log, announced on `lap` with its time and distance, the LED flickers a second")
    func shortPress() throws {
        var c = core()
        _ = ride(&c, from: 0, seconds: 61)
        let effects = c.handle(.lapButton(.short, at: at(60.5)))
        #expect(Self.laps(effects).map(\.trigger) == [.manual])
        let payload = try #require(Self.announcements(effects).first)
        #expect(payload.contains(#""seq":1,"lap":1,"trigger":"manual","lap_time_s":60"#) && payload.contains(#""lap_distance_m":600"#), "\(payload)")
        #expect(effects.contains(.showOnLED(.acknowledged)))
        // A second later the LED shows what it showed before.
        let later = ride(&c, from: 61, seconds: 2)
        #expect(later.contains { if case .showOnLED(let s) = $0 { s != .acknowledged } else { false } })
        // The next lap counts from this one.
        _ = ride(&c, from: 63, seconds: 30)
        let second = try #require(Self.announcements(c.handle(.lapButton(.short, at: at(92.5)))).first)
        #expect(second.contains(#""seq":2,"lap":2,"trigger":"manual","lap_time_s":32"#), "\(second)")
    }

    @Test("A long press ends the ride: its final summary retained, its end in the ride log, the live totals start again")
    func longPress() throws {
        var c = core()
        _ = ride(&c, from: 0, seconds: 61)
        let effects = c.handle(.lapButton(.long, at: at(60.5)))
        let summary = try #require(effects.compactMap { if case .publish(let p) = $0, p.topic == "ride" { p } else { nil } }.first)
        #expect(summary.retain && summary.payload.contains(#""final":true"#) && summary.payload.contains(#""distance_m":600"#), "\(summary.payload)")
        #expect(effects.contains { if case .record(.end) = $0 { true } else { false } })
        #expect(c.rideTotals.ride.distanceMeters == 0)
    }

    @Test("Auto-lap: a lap every ride.auto_lap_km, announced with trigger distance")
    func autoLap() {
        var c = core(autoLapKm: 1)
        let effects = ride(&c, from: 0, seconds: 260) // 2.59 km
        #expect(Self.laps(effects).map(\.trigger) == [.distance, .distance])
        #expect(Self.announcements(effects).count == 2 && Self.announcements(effects)[1].contains(#""lap":2,"trigger":"distance""#))
    }
}
