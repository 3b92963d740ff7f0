import RidegateCore
import Testing

/// `[owntracks]`: the bike as an OwnTracks device (owntracks.org/booklet/tech/json), through the core.
@Suite struct OwnTracksTests {
    static let start = 1_782_057_600.0 // 2026-06-21 16:00 UTC

    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: Self.start + s)) }

    func core(always: Bool = false, zones: PrivacyZones = PrivacyZones()) -> GatewayCore {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]))
        settings.ownTracks = OwnTracksSettings(topic: "owntracks/jo/bike", trackerID: "JO", interval: 30, always: always)
        settings.privacyZones = zones
        return GatewayCore(settings: settings)
    }

    func fix(_ second: Double, speed: Double = 7.5, latitude: Double = 40.0145698) -> SourceEvent {
        .gpsFix(GPSFix(time: Timestamp(secondsSince1970: Self.start + second), mode: .threeD, latitude: latitude, longitude: -105.2716813,
                       altitudeMSL: 1653.6, speedMetersPerSecond: speed, trackDegrees: 245.3, hdop: 0.99), at: at(second))
    }

    func ownTracks(_ effects: [Effect]) -> [Publication] {
        effects.compactMap { if case .publish(let p) = $0, p.topic.hasPrefix("owntracks/") { p } else { nil } }
    }

    @Test("A location as the booklet has it: retained on owntracks/<user>/<device>, whole km/h, degrees and metres")
    func location() throws {
        var c = core()
        var sent: [Publication] = []
        for second in 0..<5 { sent += ownTracks(c.handle(fix(Double(second)))) }
        let first = try #require(sent.first)
        #expect(first.topic == "owntracks/jo/bike" && first.absolute && first.retain)
        // tst: the fix's GPS second (the first one GPS time is trusted on, within the first few).
        let tst = try #require(Int(first.payload.split(separator: ",")[2].dropFirst(6)))
        #expect((Int(Self.start)..<Int(Self.start) + 5).contains(tst), "\(first.payload)")
        #expect(first.payload.hasPrefix(#"{"_type":"location","tid":"JO","tst":"#))
        #expect(first.payload.hasSuffix(#","lat":40.0145698,"lon":-105.2716813,"acc":5,"alt":1654,"vel":27,"cog":245}"#), "\(first.payload)")
    }

    @Test("acc is never 0 (Home Assistant's owntracks integration ignores such a location), nor anything but whole metres")
    func accuracy() {
        let fix = GPSFix(time: Timestamp(secondsSince1970: Self.start), mode: .threeD, latitude: 40, longitude: -105, hdop: 0)
        #expect(Payloads.ownTracksLocation(fix, trackerID: "JO", ts: Timestamp(secondsSince1970: Self.start)).hasSuffix(#""acc":1}"#))
        var noisy = fix
        noisy.hdop = 2.33
        #expect(Payloads.ownTracksLocation(noisy, trackerID: "JO", ts: Timestamp(secondsSince1970: Self.start)).hasSuffix(#""acc":12}"#))
    }

    @Test("At most one location per interval of GPS time, while the ride moves; with when = \"always\" also while it stands")
    func interval() {
        var riding = core()
        var sent: [Publication] = []
        for second in 0..<65 { sent += ownTracks(riding.handle(fix(Double(second)))) }
        #expect(sent.count == 3, "\(sent.map(\.payload))")
        for second in 65..<130 { sent += ownTracks(riding.handle(fix(Double(second), speed: 0))) }
        #expect(sent.count == 3, "standing: nothing more")

        var always = core(always: true)
        var standing: [Publication] = []
        for second in 0..<65 { standing += ownTracks(always.handle(fix(Double(second), speed: 0))) }
        #expect(standing.count == 3)
    }

    @Test("None from inside a privacy zone; the orderly stop says lwt, with when the device came")
    func privacyAndGoingAway() throws {
        let zone = PrivacyZones([.init(name: "home", latitude: 40.0145698, longitude: -105.2716813, radiusMeters: 300)])
        var c = core(zones: zone)
        var sent: [Publication] = []
        for second in 0..<40 { sent += ownTracks(c.handle(fix(Double(second)))) }
        #expect(sent.isEmpty)
        for second in 40..<45 { sent += ownTracks(c.handle(fix(Double(second), latitude: 40.02))) }
        #expect(sent.count == 1 && sent[0].payload.contains(#""lat":40.02,"#))
        let away = try #require(ownTracks(c.shutdownEffects(at: at(50))).last)
        #expect(away.topic == "owntracks/jo/bike" && !away.retain)
        #expect(away.payload.hasPrefix(#"{"_type":"lwt","tst":"#))
    }

    @Test("The config: on with an [owntracks] table (enabled = false turns it off), its defaults, and its mistakes said")
    func config() throws {
        #expect(try ConfigDocument.parse("", file: "t.toml").ownTracks == nil)
        #expect(try ConfigDocument.parse("[owntracks]\nenabled = false\nuser = \"jo\"", file: "t.toml").ownTracks == nil)
        let defaults = try #require(try ConfigDocument.parse("[owntracks]", file: "t.toml").ownTracks)
        #expect(defaults == GatewayConfig.OwnTracks())
        #expect(defaults.user == "ridegate" && defaults.device == nil && defaults.trackerID == "RG" && defaults.intervalSeconds == 30 && !defaults.always)
        let set = try #require(try ConfigDocument.parse("""
            [owntracks]
            user = "jo"
            device = "gravel"
            tracker_id = "J"
            interval_s = 10
            when = "always"
            """, file: "t.toml").ownTracks)
        #expect(set.user == "jo" && set.device == "gravel" && set.trackerID == "J" && set.intervalSeconds == 10 && set.always)
        let refused: [(String, String)] = [
            ("user = \"jo/bike\"", "owntracks.user"), ("device = \"#\"", "owntracks.device"), ("user = \"\"", "owntracks.user"),
            ("tracker_id = \"JOE\"", "owntracks.tracker_id"), ("when = \"sometimes\"", "owntracks.when"),
            ("interval_s = 0", "owntracks.interval_s"), ("intervall_s = 5", "intervall_s"),
        ]
        for (line, said) in refused {
            do {
                _ = try ConfigDocument.parse("[owntracks]\n" + line, file: "t.toml")
                Issue.record("accepted: \(line)")
            } catch {
                #expect(error.description.contains(said), "\(error.description)")
            }
        }
    }
}
