import RidegateCore
import Testing

@Suite struct GatewayCoreTests {
    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: 1_000 + s)) }

    func core() -> GatewayCore {
        GatewayCore(settings: .init(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 0))
    }

    /// What the event published, less the once-a-minute health message (tested on its own).
    func publications(_ effects: [Effect]) -> [Publication] {
        effects.compactMap { if case .publish(let p) = $0, p.topic != "health" { p } else { nil } }
    }

    func allPublications(_ effects: [Effect]) -> [Publication] {
        effects.compactMap { if case .publish(let p) = $0 { p } else { nil } }
    }

    @Test("Heart rate: per-topic sequence numbers, zone, and the system clock flagged untrusted before a GPS fix")
    func heartRate() {
        var c = core()
        let m = HeartRateMeasurement(beatsPerMinute: 140, sensorContact: .detected, rrIntervalsRaw: [439])
        let first = publications(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(m), at: at(1))))
        let second = publications(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(m), at: at(2))))
        #expect(first.map(\.topic) == ["heart_rate"])
        #expect(first[0].payload.contains(#""seq":1"#) && second[0].payload.contains(#""seq":2"#))
        #expect(first[0].payload.contains(#""zone":3"#))
        #expect(first[0].payload.contains(#""clock_trusted":false"#))
        #expect(first[0].payload.contains(#""ts":"1970-01-01T00:16:41.000Z""#))
    }

    @Test("Clock samples (chrony): only when asked, one per GPS second, only from fixes with a position and a sane date")
    func clockSamples() {
        func samples(_ effects: [Effect]) -> [ClockSample] {
            effects.compactMap { if case .clockSample(let s) = $0 { s } else { nil } }
        }
        let noon = Timestamp(secondsSince1970: 1_782_057_600)
        var off = core()
        #expect(samples(off.handle(.gpsFix(GPSFix(time: noon, mode: .threeD, latitude: 40, longitude: -105), at: at(1)))).isEmpty)
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 0)
        settings.clockSamples = true
        var c = GatewayCore(settings: settings)
        // 10 Hz: the second's first fix gives a sample, the other nine nothing; the next second gives one again.
        var got: [ClockSample] = []
        for tenth in 0..<20 {
            let dt = Double(tenth) / 10
            got += samples(c.handle(.gpsFix(GPSFix(time: noon + dt, mode: .threeD, latitude: 40, longitude: -105), at: at(1 + dt + 0.25))))
        }
        #expect(got.count == 2)
        // offset = GPS time - the system time the line arrived (system = 1000 + monotonic here).
        #expect(got.first.map { abs($0.offset - (noon.secondsSince1970 - 1001.25)) < 1e-6 } == true, "\(got)")
        #expect(got.first?.systemTime == Timestamp(secondsSince1970: 1001.25))
        // A receiver without a fix sends its own free-running clock; a 1980 date is a receiver that knows nothing.
        #expect(samples(c.handle(.gpsFix(GPSFix(time: noon + 5, mode: .noFix), at: at(7)))).isEmpty)
        #expect(
            samples(
                c.handle(.gpsFix(GPSFix(time: Timestamp(secondsSince1970: 315_964_800), mode: .threeD, latitude: 40, longitude: -105), at: at(8)))
            ).isEmpty)
    }

    @Test("After a GPS fix, readings are stamped in GPS time through the monotonic clock")
    func gpsTimeReference() {
        var c = core()
        let gpsTime = Timestamp(secondsSince1970: 1_782_057_600) // 2026-06-21T16:00:00Z
        // Three epochs agreeing along the monotonic clock establish the reference.
        for dt in [-2.0, -1, 0] {
            _ = c.handle(.gpsFix(GPSFix(time: gpsTime + dt, mode: .threeD, latitude: 40, longitude: -105), at: at(10 + dt)))
        }
        let p = publications(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 100)), at: at(12.5))))
        #expect(p[0].payload.contains(#""ts":"2026-06-21T16:00:02.500Z""#))
        #expect(p[0].payload.contains(#""clock_trusted":true"#))
    }

    @Test("The LED follows strap state, contact and zone")
    func ledSignals() {
        var c = core()
        func led(_ effects: [Effect]) -> LEDSignal? {
            effects.compactMap { if case .showOnLED(let s) = $0 { s } else { nil } }.last
        }
        #expect(led(c.handle(.sensorState(.strap("s1"), .searching, at: at(0)))) == .searchingForStrap)
        #expect(led(c.handle(.sensorState(.strap("s1"), .connected, at: at(1)))) == nil) // still no reading
        #expect(
            led(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 150, sensorContact: .detected)),
                                            at: at(2)))) == .zone(3, of: 5))
        #expect(
            led(c.handle(.sensorMeasurement(.strap("s1"),
                                            .heartRate(HeartRateMeasurement(beatsPerMinute: 150, sensorContact: .notDetected)), at: at(3))))
                == .noSensorContact)
        #expect(led(c.handle(.sensorState(.strap("s1"), .lost, at: at(4)))) == .strapLost)
    }

    @Test("A read-only state partition: health says so at once, the LED shows it in place of a status, a zone still wins")
    func readOnlyStateStorage() {
        var c = core()
        func led(_ effects: [Effect]) -> LEDSignal? {
            effects.compactMap { if case .showOnLED(let s) = $0 { s } else { nil } }.last
        }
        func health(_ effects: [Effect]) -> String? { allPublications(effects).first { $0.topic == "health" }?.payload }
        #expect(led(c.handle(.sensorState(.strap("s1"), .searching, at: at(0)))) == .searchingForStrap)
        let readOnly = c.handle(.stateStorage(.readOnly, at: at(1)))
        #expect(led(readOnly) == .stateReadOnly)
        #expect(health(readOnly)?.contains(#""state_storage":"read_only""#) == true)
        #expect(health(c.handle(.stateStorage(.readOnly, at: at(2)))) == nil) // said once per change
        _ = c.handle(.sensorState(.strap("s1"), .connected, at: at(3)))
        #expect(
            led(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 150, sensorContact: .detected)),
                                            at: at(4)))) == .zone(3, of: 5))
        #expect(led(c.handle(.sensorState(.strap("s1"), .lost, at: at(5)))) == .stateReadOnly)
        let writable = c.handle(.stateStorage(.writable, at: at(6)))
        #expect(led(writable) == .strapLost)
        #expect(health(writable)?.contains(#""state_storage":"writable""#) == true)
    }

    @Test("The last good configuration in force: health says config last_good, the LED shows it in place of a status")
    func lastGoodConfig() {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 0)
        settings.runsLastGoodConfig = true
        var c = GatewayCore(settings: settings)
        let effects = c.handle(.sensorState(.strap("s1"), .searching, at: at(0)))
        #expect(effects.contains { if case .showOnLED(.configRejected) = $0 { true } else { false } })
        #expect(allPublications(effects).first { $0.topic == "health" }?.payload.contains(#""config":"last_good""#) == true)
        #expect(c.handle(.stateStorage(.readOnly, at: at(1))).contains { if case .showOnLED(.stateReadOnly) = $0 { true } else { false } })
    }

    @Test("Device states are published retained, once per change")
    func deviceStates() {
        var c = core()
        let first = publications(c.handle(.gpsState(.noDevice, at: at(0)))).filter { $0.topic != "health" }
        let repeated = publications(c.handle(.gpsState(.noDevice, at: at(1)))).filter { $0.topic != "health" }
        #expect(first.count == 1 && first[0].topic == "gps/state" && first[0].retain)
        #expect(first[0].payload.contains(#""state":"no_device""#))
        #expect(repeated.isEmpty)
    }

    @Test("The sun is published retained on the first trusted fix, again as the countdown moves, with the sunset warning")
    func sunPublications() throws {
        var c = GatewayCore(settings: .init(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]),
                                            sunsetWarningLead: 1800, sunPublishInterval: 60))
        // Denver, 2026-06-22T02:00:00Z: 33 minutes before sunset (02:33:32Z).
        let start = Timestamp(secondsSince1970: 1_782_093_600)
        func fix(_ dt: Double) -> SourceEvent {
            .gpsFix(GPSFix(time: start + dt, mode: .threeD, latitude: 40.015, longitude: -105.2705), at: at(dt))
        }
        // The first two epochs wait for the third to agree with them (the time reference); then all three count.
        #expect(publications(c.handle(fix(-2)) + c.handle(fix(-1))).isEmpty)
        let first = publications(c.handle(fix(0))).filter { $0.topic == "sun" }
        try #require(first.count == 1)
        #expect(first[0].retain)
        #expect(first[0].payload.contains(#""sunset_warning":false"#))
        #expect(first[0].payload.contains(#""seconds_to_sunset":2014"#))
        #expect(publications(c.handle(fix(30))).filter { $0.topic == "sun" }.isEmpty)
        let later = publications(c.handle(fix(240))).filter { $0.topic == "sun" }
        #expect(later.count == 1)
        #expect(later[0].payload.contains(#""seconds_to_sunset":1772"#))
        #expect(later[0].payload.contains(#""sunset_warning":true"#))
        #expect(c.sunsetWarning)
    }

    @Test("A remembered position publishes the sun before any fix, saying the clock is untrusted")
    func sunFromRememberedPosition() {
        var c = core()
        let effects = c.handle(.lastKnownPosition(latitude: 51.5, longitude: -0.13, at: at(0)))
        let sun = publications(effects).filter { $0.topic == "sun" }
        #expect(sun.count == 1)
        #expect(sun[0].payload.contains(#""clock_trusted":false"#))
        #expect(!effects.contains(.rememberPosition(latitude: 51.5, longitude: -0.13)))
        // The first real fix far away is remembered.
        let moved = [1.0, 2, 3].flatMap { s in
            c.handle(.gpsFix(GPSFix(time: Timestamp(secondsSince1970: 1_782_057_600 + s), mode: .threeD, latitude: 40, longitude: -105), at: at(s)))
        }
        #expect(moved.contains(.rememberPosition(latitude: 40, longitude: -105)))
    }

    @Test("Health goes out with the first event and then once a minute, carried by events")
    func health() {
        var c = core()
        func healthCount(_ t: Double) -> Int {
            allPublications(c.handle(.gpsState(.noFix, at: at(t)))).filter { $0.topic == "health" }.count
        }
        #expect(healthCount(0) == 1)
        #expect(healthCount(30) == 0)
        #expect(healthCount(60) == 1)
    }

    @Test("The tracker's position goes out only with a position, at most every positionInterval of GPS time")
    func positionOnlyWithAFix() throws {
        var c = core()
        let t0 = 1_782_057_600.0
        func fix(_ dt: Double, lat: Double?) -> GPSFix {
            GPSFix(time: Timestamp(secondsSince1970: t0 + dt), mode: lat == nil ? .noFix : .threeD, latitude: lat, longitude: lat.map { _ in -105 })
        }
        #expect(!publications(c.handle(.gpsFix(fix(0, lat: nil), at: at(0)))).contains { $0.topic == "position" })
        // The first fixes wait for the time reference (three agreeing epochs), then count in order: one position.
        #expect(
            !publications(c.handle(.gpsFix(fix(1, lat: 40), at: at(1))) + c.handle(.gpsFix(fix(2, lat: 40), at: at(2)))).contains {
                $0.topic == "position"
            })
        let positions = publications(c.handle(.gpsFix(fix(3, lat: 40), at: at(3)))).filter { $0.topic == "position" }
        try #require(positions.count == 1)
        #expect(positions[0].retain && positions[0].sequence == nil)
        #expect(positions[0].payload == #"{"ts":"2026-06-21T16:00:01.000Z","latitude":40,"longitude":-105,"gps_accuracy":5}"#)
        #expect(!publications(c.handle(.gpsFix(fix(4, lat: 40.001), at: at(4)))).contains { $0.topic == "position" })
        #expect(!publications(c.handle(.gpsFix(fix(6, lat: nil), at: at(6)))).contains { $0.topic == "position" })
        #expect(publications(c.handle(.gpsFix(fix(6.5, lat: 40.002), at: at(6.5)))).contains { $0.topic == "position" })
    }

    @Test("An orderly stop: final ride summary, every device stopped (retained), a last health; the demo also removes its discovery")
    func shutdownLeavesNothingClaimingLife() throws {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 0)
        var discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/demo", deviceID: "demo", version: "1")
        discovery.removeAtStop = true
        settings.homeAssistant = discovery
        var c = GatewayCore(settings: settings)
        for s in [0.0, 0.5, 1] {
            _ = c.handle(
                .gpsFix(GPSFix(time: Timestamp(secondsSince1970: 1_782_057_599 + s), mode: .threeD, latitude: 40, longitude: -105), at: at(s)))
        }
        _ = c.handle(.sensorState(.strap("s1"), .connected, at: at(2)))
        _ = c.handle(.sensorDetails(.strap("s1"), SensorDetails(name: "H10", bodyLocation: nil, batteryPercent: 80), at: at(3)))
        _ = c.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 120)), at: at(3.5)))
        _ = c.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 140)), at: at(3.6)))
        let out = allPublications(c.shutdownEffects(at: at(4)))
        #expect(out.first?.topic == "ride")
        // The ride summary is retained and, at the stop, final; with the strap's average and maximum.
        #expect(out.first?.retain == true && out.first?.payload.contains(#""final":true"#) == true)
        #expect(out.first?.payload.contains(#""avg_hr_bpm":130,"max_hr_bpm":140,"elevation_gain_m":0,"elevation_loss_m":0"#) == true,
                "\(out.first?.payload ?? "")")
        #expect(c.rideSummary(ts: Timestamp(secondsSince1970: 1_782_057_600)).payload.contains(#""final":false"#))
        let gps = try #require(out.first { $0.topic == "gps/state" })
        #expect(gps.retain && gps.payload.contains(#""state":"stopped""#))
        let strap = try #require(out.first { $0.topic == "strap/s1/state" })
        #expect(strap.retain && strap.payload.contains(#""state":"stopped""#))
        let health = try #require(out.first { $0.topic == "health" })
        #expect(health.retain && health.payload.contains(#""gps_state":"stopped""#))
        // The device, and with it every entity of the gateway and the strap: one empty retained message.
        let removed = out.filter(\.absolute)
        #expect(removed == [Publication(topic: "homeassistant/device/demo/config", payload: "", retain: true, absolute: true)])

        // The daemon keeps its entities (they show unavailable through the offline status).
        var kept = core()
        _ = kept.handle(.gpsState(.noDevice, at: at(1)))
        let daemon = allPublications(kept.shutdownEffects(at: at(2)))
        #expect(!daemon.contains { $0.absolute })
        #expect(daemon.contains { $0.topic == "gps/state" && $0.payload.contains("stopped") })
        #expect(!daemon.contains { $0.topic.hasPrefix("strap/") })
    }

    @Test("Rate limit: within the interval readings are held back and counted; the next one out is the newest")
    func rateLimitCoalesces() throws {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 0)
        settings.heartRateMinimumInterval = 1
        settings.healthInterval = 0 // every event carries one: the test reads the count when it likes
        var c = GatewayCore(settings: settings)
        var sent: [Publication] = []
        for (i, t) in [0.0, 0.25, 0.5, 0.75, 1.0, 1.5].enumerated() {
            let m = HeartRateMeasurement(beatsPerMinute: 100 + i, sensorContact: .detected)
            sent += publications(c.handle(.sensorMeasurement(.strap("s1"), .heartRate(m), at: at(t)))).filter { $0.topic == "heart_rate" }
        }
        #expect(sent.count == 2)
        #expect(sent.map(\.sequence) == [1, 2]) // no gaps in seq: held-back readings take no number
        #expect(sent[1].payload.contains(#""bpm":104"#))
        #expect(c.coalesced["heart_rate"] == 4)
        let health = try #require(allPublications(c.handle(.watchdogTick(at: at(2)))).first { $0.topic == "health" })
        #expect(health.payload.contains(#""coalesced":4"#))
    }

    @Test("A power meter: power with 3 s/10 s averages and cadence from its crank; a CSC sensor: cadence and wheel speed; ride totals")
    func cyclingReadings() throws {
        var c = core()
        func crank(_ revolutions: Int, _ seconds: Double) -> RevolutionData {
            RevolutionData(revolutions: UInt32(revolutions), eventTime: UInt16(Int(seconds * 1024) & 0xFFFF), ticksPerSecond: 1024, counterBits: 16)
        }
        var powers: [Publication] = []
        for second in 0..<40 {
            let m = CyclingPowerMeasurement(powerWatts: 200, crank: crank(second * 3 / 2, Double(second * 3 / 2) * 2 / 3))
            powers += publications(c.handle(.sensorMeasurement(SensorRef(kind: .power, id: "pm"),
                                                               .power(m), at: at(Double(second))))).filter { $0.topic == "sensor/pm/power" }
        }
        #expect(powers.count == 40 && powers.map(\.sequence) == Array(1...40).map { Optional($0) })
        let last = try #require(powers.last?.payload)
        #expect(last.contains(#""power_w":200,"power_3s_w":200,"power_10s_w":200,"zone":null,"cadence_rpm":90"#), "\(last)")
        let wheel = RevolutionData(revolutions: 10, eventTime: 1024, ticksPerSecond: 1024, counterBits: 32)
        let csc = SensorRef(kind: .speedCadence, id: "csc")
        _ = c.handle(.sensorMeasurement(csc, .speedCadence(CyclingSpeedCadenceMeasurement(wheel: wheel)), at: at(50)))
        let next = RevolutionData(revolutions: 14, eventTime: 2048, ticksPerSecond: 1024, counterBits: 32)
        let speed = try #require(publications(c.handle(.sensorMeasurement(csc,
                                                                          .speedCadence(CyclingSpeedCadenceMeasurement(wheel: next)), at: at(51))))
            .first { $0.topic == "sensor/csc/speed_cadence" })
        #expect(speed.payload.contains(#""cadence_rpm":null,"wheel_speed_mps":8.42"#), "\(speed.payload)") // 4 × 2.105 m in 1 s
        let ride = c.rideSummary(ts: Timestamp(secondsSince1970: 1_782_057_600)).payload
        #expect(ride.contains(#""avg_power_w":200,"max_power_w":200,"np_w":200,"work_kj":7.8,"avg_cadence_rpm":90"#), "\(ride)")
        var noMeter = core()
        #expect(noMeter.rideSummary(ts: Timestamp(secondsSince1970: 0)).payload.contains(#""avg_power_w":null,"max_power_w":null,"np_w":null"#))
    }
}

@Suite struct ReadingQoSTests {
    @Test("mqtt.qos applies to readings; retained state stays at QoS 1", arguments: [0, 1, 2])
    func readingQoS(_ qos: Int) {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]))
        settings.readingQoS = qos
        var core = GatewayCore(settings: settings)
        func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: 1_782_057_600 + s)) }
        // Three epochs establish the time reference; then a heart rate.
        let out = [0.0, 1, 2].flatMap { s in
                core.handle(
                    .gpsFix(GPSFix(time: Timestamp(secondsSince1970: 1_782_057_600 + s), mode: .threeD, latitude: 40, longitude: -105), at: at(s)))
        } + core.handle(.sensorMeasurement(.strap("s1"), .heartRate(HeartRateMeasurement(beatsPerMinute: 120)), at: at(2.5)))
        let publications = out.compactMap { if case .publish(let p) = $0 { p } else { nil } }
        let readings = publications.filter { ["gps", "heart_rate", "ride"].contains($0.topic) }
        #expect(Set(readings.map(\.topic)) == ["gps", "heart_rate", "ride"])
        #expect(readings.allSatisfy { $0.qos == qos }, "\(readings.map { ($0.topic, $0.qos) })")
        #expect(publications.filter(\.retain).allSatisfy { $0.qos == 1 })
    }
}

extension GatewayCoreTests {
    @Test("Time in heart-rate zone comes from the readings: a minute in zone 2 with a 2 s spike into zone 5 the LED ignores")
    func heartRateZoneTimeFromReadings() throws {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 3)
        settings.rideSummaryInterval = 1e9
        var c = GatewayCore(settings: settings)
        for s in 0...60 {
            let bpm = (30..<32).contains(s) ? 175 : 120 // zone 5 for two readings, zone 2 otherwise
            _ = c.handle(.sensorMeasurement(.strap("s1"),
                                            .heartRate(HeartRateMeasurement(beatsPerMinute: bpm, sensorContact: .detected)), at: at(Double(s))))
        }
        #expect(c.heartRateZone == 2)
        let summary = c.rideSummary(ts: Timestamp(secondsSince1970: 2000))
        let zones = try #require(summary.payload.split(separator: "\"zone_s\":[").dropFirst().first?.prefix { $0 != "]" })
        #expect(zones == "0,0,58,0,0,2", "\(summary.payload)")
    }
}
