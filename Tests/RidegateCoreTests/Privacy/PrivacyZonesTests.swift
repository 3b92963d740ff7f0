import RidegateCore
import Testing

/// `[[privacy_zone]]`: the circle itself, what the core publishes inside one, and the config's words for it.
@Suite struct PrivacyZonesTests {
    static let home = PrivacyZones.Zone(name: "home", latitude: 40.0150, longitude: -105.2705, radiusMeters: 300)
    /// 0.001° of latitude is 111 m.
    static let inside = (latitude: 40.0175, longitude: -105.2705) // 278 m north
    static let outside = (latitude: 40.0180, longitude: -105.2705) // 334 m north

    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: 1_782_057_600 + s)) }

    func core(_ zones: PrivacyZones) -> GatewayCore {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]))
        settings.privacyZones = zones
        settings.positionInterval = 0
        return GatewayCore(settings: settings)
    }

    func fix(_ second: Double, _ position: (latitude: Double, longitude: Double)) -> SourceEvent {
        .gpsFix(GPSFix(time: Timestamp(secondsSince1970: 1_782_057_600 + second), mode: .threeD, latitude: position.latitude,
                       longitude: position.longitude, altitudeMSL: 1600, speedMetersPerSecond: 5), at: at(second))
    }

    func published(_ effects: [Effect], _ topic: String) -> [String] {
        effects.compactMap { if case .publish(let p) = $0, p.topic == topic { p.payload } else { nil } }
    }

    @Test("The circle: inside and on its edge hidden, outside shown; no zones hide nothing; a coordinate that is not a number is hidden")
    func circle() {
        let zones = PrivacyZones([Self.home])
        #expect(zones.hides(latitude: Self.inside.latitude, longitude: Self.inside.longitude))
        #expect(zones.hides(latitude: Self.home.latitude, longitude: Self.home.longitude))
        #expect(!zones.hides(latitude: Self.outside.latitude, longitude: Self.outside.longitude))
        #expect(zones.hides(latitude: .nan, longitude: -105.27) && zones.hides(latitude: 40, longitude: .infinity))
        #expect(!PrivacyZones().hides(latitude: Self.inside.latitude, longitude: Self.inside.longitude))
        #expect(!zones.hides(GPSFix(mode: .noFix)), "a fix without a position has nothing to hide")
    }

    @Test("Inside a zone: gps without coordinates or altitude (the rest stays), no device-tracker position, sun without lat/lon")
    func coreHidesInside() {
        var c = core(PrivacyZones([Self.home]))
        var effects: [Effect] = []
        for second in 0..<3 { effects += c.handle(fix(Double(second), Self.inside)) }
        let gps = published(effects, "gps")
        #expect(gps.count == 3)
        #expect(gps.allSatisfy {
            $0.contains(#""lat":null,"lon":null,"alt_m":null,"position_hidden":true"#) && $0.contains(#""speed_mps":5"#)
        }, "\(gps)")
        #expect(published(effects, "position").isEmpty)
        let sun = published(effects, "sun")
        #expect(!sun.isEmpty && sun.allSatisfy { $0.contains(#""lat":null,"lon":null"#) && $0.contains(#""sunset":"#) }, "\(sun)")

        let out = c.handle(fix(3, Self.outside))
        #expect(published(out, "gps").allSatisfy { $0.contains(#""lat":40.018,"#) && $0.contains(#""position_hidden":false"#) })
        #expect(published(out, "position").count == 1, "the tracker moves as soon as the bike leaves the zone")
    }

    @Test("Without zones every fix is shown, as before there were any")
    func noZones() {
        var c = core(PrivacyZones())
        var effects: [Effect] = []
        for second in 0..<3 { effects += c.handle(fix(Double(second), Self.inside)) }
        #expect(published(effects, "gps").allSatisfy { $0.contains(#""lat":40.0175,"#) && $0.contains(#""position_hidden":false"#) })
        #expect(!published(effects, "position").isEmpty)
        #expect(published(effects, "sun").allSatisfy { $0.contains(#""lat":40.0175,"#) })
    }

    @Test("The config: zones in order with their radius (400 m unless given); a zone's mistakes said with the key and line")
    func config() throws {
        let config = try ConfigDocument.parse("""
            [[privacy_zone]]
            name = "home"
            latitude = 40.0150
            longitude = -105.2705

            [[privacy_zone]]
            latitude = 40.1
            longitude = -105.1
            radius_m = 1000
            """, file: "t.toml")
        #expect(config.privacyZones.zones == [
            PrivacyZones.Zone(name: "home", latitude: 40.015, longitude: -105.2705, radiusMeters: 400),
            PrivacyZones.Zone(name: "zone 2", latitude: 40.1, longitude: -105.1, radiusMeters: 1000),
        ])
        #expect(try ConfigDocument.parse("", file: "t.toml").privacyZones.zones.isEmpty)
        let refused: [(String, String)] = [
            ("[[privacy_zone]]\nname = \"home\"\nlongitude = 1", "privacy zone 1 has no latitude"),
            ("[[privacy_zone]]\nlatitude = 95\nlongitude = 1", "privacy_zone[1].latitude"),
            ("[[privacy_zone]]\nlatitude = 40\nlongitude = 1\nradius_m = 10", "privacy_zone[1].radius_m"),
            ("[[privacy_zone]]\nlatitude = 40\nlongitude = 1\nradious_m = 300", "radious_m"),
            ("privacy_zone = \"home\"", "[[privacy_zone]]"),
        ]
        for (text, said) in refused {
            #expect(throws: ConfigError.self) { try ConfigDocument.parse(text, file: "t.toml") }
            do {
                _ = try ConfigDocument.parse(text, file: "t.toml")
            } catch {
                #expect(error.description.contains(said), "\(error.description)")
            }
        }
    }
}

/// Home ends the ride: standing two minutes inside a zone marked home ends it there (its final summary, its end in
/// the ride log); a café stop, or a shorter one at home, continues it.
@Suite struct HomeEndsTheRideTests {
    static let start = 1_782_057_600.0
    static let home = PrivacyZones.Zone(name: "home", latitude: 40.0150, longitude: -105.2705, radiusMeters: 300, home: true)
    static let cafe = PrivacyZones.Zone(name: "café", latitude: 40.0300, longitude: -105.2705, radiusMeters: 300)

    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: Self.start + s)) }

    /// A ride from 1.1 km north of `stop` to it at 5 m/s (its last fix standing there), then still there for
    /// `standing` seconds in all (1 Hz): what the stop's fixes made.
    func ride(standing: Int, at stop: (latitude: Double, longitude: Double), zones: [PrivacyZones.Zone]) -> [Effect] {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]))
        settings.privacyZones = PrivacyZones(zones)
        var c = GatewayCore(settings: settings)
        var effects: [Effect] = []
        var latitude = stop.latitude + 0.01
        var second = 0.0
        while latitude > stop.latitude {
            latitude = max(stop.latitude, latitude - 0.000045) // 5 m a second towards the stop
            effects += c.handle(.gpsFix(GPSFix(time: Timestamp(secondsSince1970: Self.start + second), mode: .threeD, latitude: latitude,
                                               longitude: stop.longitude, speedMetersPerSecond: latitude > stop.latitude ? 5 : 0), at: at(second)))
            second += 1
        }
        let arrived = effects.count
        for _ in 1..<standing {
            effects += c.handle(.gpsFix(GPSFix(time: Timestamp(secondsSince1970: Self.start + second), mode: .threeD, latitude: stop.latitude,
                                               longitude: stop.longitude, speedMetersPerSecond: 0), at: at(second)))
            second += 1
        }
        return Array(effects[arrived...])
    }

    func finalSummaries(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .publish(let p) = $0, p.topic == "ride", p.retain { p.payload } else { nil } }
    }

    func ends(_ effects: [Effect]) -> Int {
        effects.filter { if case .record(.end) = $0 { true } else { false } }.count
    }

    @Test("Two minutes standing at home end the ride once, with its final summary; the minutes after end nothing more")
    func homeEndsIt() {
        let effects = ride(standing: 400, at: (Self.home.latitude, Self.home.longitude), zones: [Self.home, Self.cafe])
        let summaries = finalSummaries(effects)
        #expect(summaries.count == 1 && summaries[0].contains(#""final":true"#), "\(summaries)")
        #expect(ends(effects) == 1)
    }

    @Test("A shorter stop at home, or any stop at a café (a zone not marked home), leaves the ride open")
    func otherStopsContinue() {
        #expect(finalSummaries(ride(standing: 100, at: (Self.home.latitude, Self.home.longitude), zones: [Self.home])).isEmpty)
        let cafe = ride(standing: 400, at: (Self.cafe.latitude, Self.cafe.longitude), zones: [Self.home, Self.cafe])
        #expect(finalSummaries(cafe).isEmpty && ends(cafe) == 0)
    }

    @Test("home = true in the config")
    func config() throws {
        let config = try ConfigDocument.parse("[[privacy_zone]]\nlatitude = 40\nlongitude = -105\nhome = true", file: "t.toml")
        #expect(config.privacyZones.zones.map(\.home) == [true])
        #expect(config.privacyZones.isHome(latitude: 40, longitude: -105))
        #expect(try ConfigDocument.parse("[[privacy_zone]]\nlatitude = 40\nlongitude = -105", file: "t.toml").privacyZones.zones.map(\.home) == [false])
    }
}
