import Glibc
import RidegateCore
import Testing

/// Power meters and speed/cadence sensors through the core: their topics, power zones on the LED, the
/// wheel's distance without a fix, and the wheel's calibration against GPS.
@Suite struct CyclingPipelineTests {
    let meter = SensorRef(kind: .power, id: "pm")
    let hub = SensorRef(kind: .speedCadence, id: "hub", wheelMillimetres: 2105)

    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: 1_000 + s)) }

    func core(ftp: Int? = nil, led: ZoneSource = .heartRate) -> GatewayCore {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 0)
        settings.powerZones = ftp.map { .power(ftp: $0) }
        settings.ledZones = led
        return GatewayCore(settings: settings)
    }

    func publications(_ effects: [Effect]) -> [Publication] {
        effects.compactMap { if case .publish(let p) = $0, p.topic != "health" { p } else { nil } }
    }

    func led(_ effects: [Effect]) -> LEDSignal? {
        effects.compactMap { if case .showOnLED(let s) = $0 { s } else { nil } }.last
    }

    func wheel(_ revolutions: Int, _ seconds: Double) -> RevolutionData {
        RevolutionData(revolutions: UInt32(revolutions), eventTime: UInt16(Int(seconds * 1024) & 0xFFFF), ticksPerSecond: 1024, counterBits: 32)
    }

    @Test("A power meter's state and info go under sensor/<id>, a strap's under strap/<id>; reconnects are counted apart")
    func topics() throws {
        var c = core()
        let connected = publications(c.handle(.sensorState(meter, .connected, at: at(1))))
        #expect(connected.map(\.topic) == ["sensor/pm/state"] && connected[0].retain)
        var details = SensorDetails(name: "4iiii", batteryPercent: 71, measures: [.power, .cadence])
        details.sensorLocation = "left_crank"
        details.manufacturer = "4iiii Innovations"
        let info = try #require(publications(c.handle(.sensorDetails(meter, details, at: at(2)))).first)
        #expect(info.topic == "sensor/pm/info")
        #expect(
            info.payload.contains(
                #""name":"4iiii","location":"left_crank","battery_pct":71,"manufacturer":"4iiii Innovations","model":null,"measures":["power","cadence"],"wheel_mm":2105"#
            ), "\(info.payload)")
        #expect(publications(c.handle(.sensorState(.strap("s1"), .lost, at: at(3)))).map(\.topic) == ["strap/s1/state"])
        _ = c.handle(.sensorState(meter, .lost, at: at(4)))
        _ = c.handle(.sensorState(meter, .connected, at: at(5)))
        _ = c.handle(.sensorState(meter, .lost, at: at(6)))
        // A minute after the first event's health: the next one is due.
        let health = try #require(
            c.handle(.watchdogTick(at: at(100))).compactMap { if case .publish(let p) = $0, p.topic == "health" { p } else { nil } }.first)
        #expect(health.payload.contains(#""strap_reconnects":1,"sensor_reconnects":2"#), "\(health.payload)")
    }

    @Test("Power zones follow the 3 s average with hysteresis; the LED shows them when asked, heart-rate zones otherwise")
    func powerZonesOnTheLED() throws {
        var c = core(ftp: 250, led: .power)
        _ = c.handle(.sensorState(meter, .connected, at: at(0)))
        var shown: [LEDSignal] = []
        var zones: [Int?] = []
        // 3 s at 150 W (zone 2: 140–189 W), then a sprint at 400 W (zone 7: ≥ 378 W).
        for (second, watts) in [(1, 150), (2, 150), (3, 150), (4, 400), (5, 400), (6, 400), (7, 400), (8, 400), (9, 400), (10, 400)] {
            let effects = c.handle(.sensorMeasurement(meter, .power(CyclingPowerMeasurement(powerWatts: watts)), at: at(Double(second))))
            if let signal = led(effects) { shown.append(signal) }
            let p = try #require(publications(effects).first { $0.topic == "sensor/pm/power" })
            zones.append(p.payload.contains(#""zone":"#) ? Int(p.payload.split(separator: "\"zone\":")[1].prefix { $0.isNumber }) : nil)
        }
        // The zone follows the 3 s average, each reading standing for the second before it: 233 W at the sprint's
        // first reading, then 317 W, 400 W. Each move waits out the 1 s dwell and goes to the zone the latest average
        // is clearly in (20 W past a boundary): 5 (317 W is within 20 W of zone 6's 303 W), then 7, a second after
        // the 3 s power entered it.
        #expect(zones == [2, 2, 2, 2, 5, 5, 7, 7, 7, 7], "\(zones)")
        #expect(shown.first == .zone(2, of: 7) && shown.last == .zone(7, of: 7), "\(shown)")
        // Heart-rate zones on the LED (the default): power zones are published, the LED ignores them.
        var hr = core(ftp: 250)
        _ = hr.handle(.sensorState(meter, .connected, at: at(0)))
        let effects = hr.handle(.sensorMeasurement(meter, .power(CyclingPowerMeasurement(powerWatts: 400)), at: at(1)))
        #expect(led(effects) != .zone(7, of: 7))
        #expect(publications(effects).first { $0.topic == "sensor/pm/power" }?.payload.contains(#""zone":7"#) == true)
        // Power zones on the LED but the meter lost: back to what the strap says.
        #expect(led(c.handle(.sensorState(meter, .lost, at: at(11)))) == .searchingForStrap)
    }

    @Test("Without a fix the wheel measures the ride; when the fix returns GPS does again, and no stretch counts twice")
    func wheelDistanceWithoutAFix() {
        var c = core()
        let start = Timestamp(secondsSince1970: 1_782_057_600)
        // 10 s of GPS at 8 m/s due north: ~80 m.
        for s in 0...10 {
            _ = c.handle(.gpsFix(GPSFix(time: start + Double(s), mode: .threeD, latitude: 40 + Double(s) * 8 / 111_195,
                                        longitude: -105, speedMetersPerSecond: 8, hdop: 0.9), at: at(Double(s))))
        }
        let gps = c.rideTotals.ride.distanceMeters
        #expect(abs(gps - 80) < 0.5, "\(gps)")
        // Into a tunnel: the wheel, 4 revolutions a second (8.42 m/s), for 30 s.
        for s in 11...40 {
            let m = CyclingSpeedCadenceMeasurement(wheel: wheel(4 * (s - 10), Double(s - 10)))
            _ = c.handle(.sensorMeasurement(hub, .speedCadence(m), at: at(Double(s))))
        }
        // The first reading only starts the wheel; 29 steps of 4 revolutions, each 1 s, count: the two within 3 s of
        // the last fix are held back, and count once the fix is 3 s old (the tunnel's first seconds are not lost).
        let tunnel = c.rideTotals.ride.distanceMeters - gps
        #expect(abs(tunnel - 29 * 4 * 2.105) < 0.01, "\(tunnel)")
        #expect(abs(c.rideTotals.ride.wheelDistanceMeters - tunnel) < 0.001)
        // Out of the tunnel, 200 m further on: the first fix is a new start, not a 200 m jump.
        let resume = 40 + 10 * 8.0 / 111_195 + 0.0018
        for s in 41...45 {
            _ = c.handle(.gpsFix(GPSFix(time: start + Double(s), mode: .threeD, latitude: resume + Double(s - 41) * 8 / 111_195,
                                        longitude: -105, speedMetersPerSecond: 8, hdop: 0.9), at: at(Double(s))))
            let m = CyclingSpeedCadenceMeasurement(wheel: wheel(4 * (s - 10), Double(s - 10)))
            _ = c.handle(.sensorMeasurement(hub, .speedCadence(m), at: at(Double(s))))
        }
        let after = c.rideTotals.ride.distanceMeters - gps - tunnel
        #expect(abs(after - 32) < 0.5, "\(after)") // 4 GPS steps of 8 m; the wheel is not added while fixes come
        #expect(c.rideSummary(ts: start + 50).payload.contains(#""wheel_distance_m":244.2"#))
    }

    @Test("Fixes read late in a burst (a stalled reader) add nothing the wheel already measured meanwhile")
    func lateFixesAfterTheWheel() {
        var c = core()
        let start = Timestamp(secondsSince1970: 1_782_057_600)
        func fix(_ s: Int) -> GPSFix {
            GPSFix(
                time: start + Double(s), mode: .threeD, latitude: 40 + Double(s) * 8 / 111_195, longitude: -105, speedMetersPerSecond: 8, hdop: 0.9)
        }
        for s in 0...10 { _ = c.handle(.gpsFix(fix(s), at: at(Double(s)))) }
        // The receiver's bytes wait unread for 10 s while the wheel's notifications come: the wheel measures the ride.
        for s in 11...20 {
            let m = CyclingSpeedCadenceMeasurement(wheel: wheel(4 * (s - 10), Double(s - 10)))
            _ = c.handle(.sensorMeasurement(hub, .speedCadence(m), at: at(Double(s))))
        }
        let measured = c.rideTotals.ride.distanceMeters
        // Then the fixes of those 10 s, read at once, and the ride goes on with fixes on time.
        for s in 11...20 { _ = c.handle(.gpsFix(fix(s), at: at(20.5))) }
        #expect(c.rideTotals.ride.distanceMeters == measured, "the late fixes added \(c.rideTotals.ride.distanceMeters - measured) m")
        for s in 21...25 { _ = c.handle(.gpsFix(fix(s), at: at(Double(s)))) }
        #expect(abs(c.rideTotals.ride.distanceMeters - measured - 5 * 8) < 0.5, "\(c.rideTotals.ride.distanceMeters - measured)")
    }

    @Test("Wheel calibration: a known ride with a 2096 mm wheel configured as 2105 mm gives the estimate ±3 mm")
    func wheelCalibrationAgainstAKnownRide() {
        var c = core()
        let start = Timestamp(secondsSince1970: 1_782_057_600)
        let true_mm = 2096.0
        let speed = 7.5 // m/s
        var revolutions = 0.0
        var lastEvent = 0.0
        // 5 minutes; fixes at 1 Hz with a metre of noise, the wheel notifying once a second, a little late.
        // For a minute the fix is poor (HDOP 4) and drifts 15 % ahead: that minute must not count.
        var drift = 0.0
        for s in 0...300 {
            let metres = Double(s) * speed
            let noise = sin(Double(s) * 1.7) * 1.0
            let poor = (100..<160).contains(s)
            if poor { drift += 0.15 * speed }
            _ = c.handle(.gpsFix(GPSFix(time: start + Double(s), mode: .threeD, latitude: 40 + (metres + drift + noise) / 111_195,
                                        longitude: -105, speedMetersPerSecond: speed, hdop: poor ? 4 : 0.8), at: at(Double(s))))
            revolutions = (metres / (true_mm / 1000)).rounded(.down)
            lastEvent = revolutions * (true_mm / 1000) / speed
            let data = RevolutionData(revolutions: UInt32(revolutions), eventTime: UInt16(Int(lastEvent * 1024) & 0xFFFF),
                                      ticksPerSecond: 1024, counterBits: 32)
            _ = c.handle(.sensorMeasurement(hub, .speedCadence(CyclingSpeedCadenceMeasurement(wheel: data)), at: at(Double(s) + 0.3)))
        }
        let summary = c.rideSummary(ts: start + 301).payload
        let estimate = summary.split(separator: "\"wheel_mm_estimate\":")[1].prefix { $0.isNumber }
        #expect(abs((Double(estimate) ?? 0) - true_mm) <= 3, "\(summary)")
        // Before 500 m of good riding there is no estimate.
        var fresh = core()
        #expect(fresh.rideSummary(ts: start).payload.contains(#""wheel_mm_estimate":null"#))
    }
}

/// What a device says it measures, from its feature characteristics: what Home Assistant gets entities for.
@Suite struct SensorMeasureTests {
    @Test("CSC Feature: wheel bit → wheel speed, crank bit → cadence; too short → both, and the readings decide")
    func cscFeature() {
        #expect(SensorMeasure.fromCSCFeature([0x01, 0x00]) == [.wheelSpeed])
        #expect(SensorMeasure.fromCSCFeature([0x02, 0x00]) == [.cadence])
        #expect(SensorMeasure.fromCSCFeature([0x07, 0x00]) == [.wheelSpeed, .cadence])
        #expect(SensorMeasure.fromCSCFeature([0x00, 0x00]) == [])
        #expect(SensorMeasure.fromCSCFeature([0x01]) == [.wheelSpeed, .cadence])
    }

    @Test("Cycling Power Feature: power always; bit 2 wheel speed, bit 3 cadence")
    func powerFeature() {
        #expect(SensorMeasure.fromCyclingPowerFeature([0x00, 0, 0, 0]) == [.power])
        #expect(SensorMeasure.fromCyclingPowerFeature([0x08, 0, 0, 0]) == [.power, .cadence])
        #expect(SensorMeasure.fromCyclingPowerFeature([0x04, 0, 0, 0]) == [.power, .wheelSpeed])
        #expect(SensorMeasure.fromCyclingPowerFeature([0x0C]) == [.power])
        #expect(SensorMeasure.sensorLocationName(5) == "left_crank" && SensorMeasure.sensorLocationName(200) == "unknown")
    }
}
