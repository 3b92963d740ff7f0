import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The files a rider uploads say what a head unit's say, read back by Garmin's FIT SDK and checked against the
/// published schemas: timer time is moving time with its stop and start events, the session and laps carry every
/// total, laps tile the ride, one record a second, every sensor named.
@Suite struct RideFileWritersTests {
    static let start = 1_782_057_600.0 // 2026-06-21T16:00:00Z

    /// 20 minutes at `rate` points a second: 8 m/s, a 2-minute stop from minute 8, a hill, 120-170 bpm, 150-250 W, 90 rpm.
    static func points(rate: Int = 1) -> [RidePoint] {
        var distance = 0.0
        return (0..<(1200 * rate)).map { i in
            let t = Double(i) / Double(rate)
            let stopped = (480..<600).contains(t)
            if !stopped { distance += 8 / Double(rate) }
            return RidePoint(time: Timestamp(secondsSince1970: start + t), latitude: 40 + distance / 111_195, longitude: -105.27,
                             altitude: 1600 + 30 * sin(t / 200), speed: stopped ? 0 : 8, distance: distance, moving: !stopped,
                             heartRate: 120 + Int(t) % 50, cadence: stopped ? 0 : 90, power: stopped ? 0 : 150 + Int(t) % 100)
        }
    }

    static let laps = [LapMark(time: Timestamp(secondsSince1970: start + 300), trigger: .manual),
                       LapMark(time: Timestamp(secondsSince1970: start + 720), trigger: .distance)]
    static let context = RideStatistics.Context(heartRateZones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), powerZones: .power(ftp: 250))
    static let devices = [RideDevice(sensorID: "aa", kind: .heartRate, measures: [.heartRate], name: "Polar H10", manufacturer: "Polar Electro Oy",
                                     model: "H10", serialNumber: "C7A1B2C3", batteryPercent: 80),
                          RideDevice(sensorID: "bb", kind: .power, measures: [.power, .cadence], manufacturer: "4iiii", model: "Precision",
                                     serialNumber: "1234567", batteryPercent: 15)]

    static func write(_ format: RideFileFormat, points: [RidePoint]) throws -> (path: String, summary: RideSummary) {
        let summary = try #require(RideSummary.of(points, laps: laps, context: context))
        let export = RideExport(summary: summary, name: "Afternoon ride", creator: "ridegate 0.9.2", softwareVersion: 0.92, serialNumber: 7,
                                devices: devices, context: context, ftp: 250, utcOffsetSeconds: -6 * 3600)
        var writer = format.writer(export)
        var bytes: [UInt8] = []
        for point in points {
            writer.add(point)
            bytes += writer.take()
        }
        writer.finish()
        bytes += writer.take()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rg-writer-\(UUID().uuidString).\(format.rawValue)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, summary)
    }

    static func number(_ value: Any?) -> Double { (value as? NSNumber)?.doubleValue ?? .nan }

    @Test("FIT through Garmin's SDK: integrity, timer time = moving time with its events, every session and lap total, laps tiling the ride")
    func fitSession() async throws {
        let (path, summary) = try Self.write(.fit, points: Self.points())
        let fit = try await GarminFITSDK.read(path)
        #expect(fit.integrity && fit.errors.isEmpty, "\(fit.errors)")
        let s = summary.statistics
        let session = fit.first("session_mesgs")
        #expect(abs(Self.number(session["total_timer_time"]) - s.timerSeconds) < 0.001 && s.timerSeconds == 1199 - 120, "\(session)")
        #expect(Self.number(session["total_elapsed_time"]) == 1199 && Self.number(session["total_moving_time"]) == s.timerSeconds)
        #expect(abs(Self.number(session["total_distance"]) - s.distanceMeters) < 0.01)
        let expected: [(String, Double?)] = [
            ("avg_heart_rate", s.averageHeartRate?.rounded()), ("max_heart_rate", s.maximumHeartRate.map(Double.init)),
            ("avg_power", s.averagePower?.rounded()), ("max_power", s.maximumPower.map(Double.init)),
            ("normalized_power", s.normalizedPower?.rounded()), ("total_work", s.workJoules?.rounded()),
            ("total_calories", s.calories?.rounded()), ("avg_cadence", s.averageCadence?.rounded()), ("max_cadence", s.maximumCadence.map(Double.init)),
            ("total_ascent", s.ascentMeters.rounded()), ("total_descent", s.descentMeters.rounded()), ("threshold_power", 250), ("num_laps", 3),
        ]
        for (key, value) in expected {
            #expect(value != nil && Self.number(session[key]) == value, "session.\(key): \(String(describing: session[key])), expected \(String(describing: value))")
        }
        #expect(abs(Self.number(session["avg_speed"]) - (s.averageSpeed ?? 0)) < 0.001 && Self.number(session["max_speed"]) == 8)
        #expect(session["sport"] as? String == "cycling")
        // Laps: manual, distance, and the last at the session's end; their times and distances add up exactly.
        let laps = fit.all("lap_mesgs")
        #expect(laps.compactMap { $0["lap_trigger"] as? String } == ["manual", "distance", "session_end"])
        for key in ["total_timer_time", "total_elapsed_time", "total_distance"] {
            let sum = laps.reduce(0) { $0 + Self.number($1[key]) }
            #expect(abs(sum - Self.number(session[key])) < 0.02, "laps' \(key) \(sum), session's \(String(describing: session[key]))")
        }
        #expect(laps.allSatisfy { $0["avg_power"] != nil && $0["normalized_power"] != nil && $0["total_calories"] != nil && $0["avg_heart_rate"] != nil })
        // The timer events: it ran from the start to the stop and from the restart to the end, as long as the timer time.
        let timer = fit.all("event_mesgs").filter { $0["event"] as? String == "timer" }
        #expect(timer.compactMap { $0["event_type"] as? String } == ["start", "stop_all", "start", "stop_all"], "\(timer)")
        let times = timer.map { Self.number($0["timestamp"]) }
        #expect(times.count == 4 && (times[1] - times[0]) + (times[3] - times[2]) == s.timerSeconds)
        // Time in zone for the session: every second in one zone.
        let zones = try #require(fit.all("time_in_zone_mesgs").first { $0["reference_mesg"] as? String == "session" })
        let hrSeconds = (zones["time_in_hr_zone"] as? [Any] ?? []).map { Self.number($0) }
        let powerSeconds = (zones["time_in_power_zone"] as? [Any] ?? []).map { Self.number($0) }
        #expect(hrSeconds.count == 6 && abs(hrSeconds.reduce(0, +) - 1200) < 0.01, "\(hrSeconds)")
        #expect(powerSeconds.count == 8 && abs(powerSeconds.reduce(0, +) - 1200) < 0.01 && Self.number(zones["functional_threshold_power"]) == 250)
        // Local time: six hours behind UTC.
        let activity = fit.first("activity_mesgs")
        #expect(Self.number(activity["timestamp"]) - Self.number(activity["local_timestamp"]) == 6 * 3600)
    }

    @Test("FIT names every sensor (ANT+ device type, Bluetooth LE, product, serial, battery) and the gateway as creator")
    func fitDevices() async throws {
        let fit = try await GarminFITSDK.read(try Self.write(.fit, points: Self.points()).path)
        let devices = fit.all("device_info_mesgs")
        #expect(devices.count == 3)
        #expect(devices.first?["device_index"] as? String == "creator" && devices.first?["product_name"] as? String == "ridegate 0.9.2")
        let strap = try #require(devices.first { Self.number($0["device_type"]) == 120 })
        #expect(strap["source_type"] as? String == "bluetooth_low_energy" && strap["product_name"] as? String == "Polar Electro Oy H10")
        #expect(Self.number(strap["battery_level"]) == 80 && strap["serial_number"] != nil)
        let meter = try #require(devices.first { Self.number($0["device_type"]) == 11 })
        #expect(Self.number(meter["serial_number"]) == 1_234_567 && meter["battery_status"] as? String == "low")
        #expect(Self.number(fit.first("file_creator_mesgs")["software_version"]) == 92)
    }

    @Test("At 10 Hz: one record a second, no two with the same timestamp; the totals are the 1 Hz ride's")
    func fitTenHertz() async throws {
        let (path, summary) = try Self.write(.fit, points: Self.points(rate: 10))
        let fit = try await GarminFITSDK.read(path)
        let stamps = fit.all("record_mesgs").map { Self.number($0["timestamp"]) }
        #expect(stamps.count == 1200 && Set(stamps).count == 1200)
        let oneHertz = try #require(RideSummary.of(Self.points(), laps: Self.laps, context: Self.context))
        #expect(summary.statistics.timerSeconds == oneHertz.statistics.timerSeconds)
    }

    @Test("TCX: laps tile the ride with timer time, calories and the LX power and speed; valid against the schemas", .referenceCorpus)
    func tcxLaps() async throws {
        let (path, summary) = try Self.write(.tcx, points: Self.points())
        let (status, said) = try await RideFileSchemas.validate(path, as: .tcx)
        #expect(status == 0, "xmllint: \(said.suffix(5))")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let totals = text.components(separatedBy: "<TotalTimeSeconds>").dropFirst().compactMap { Double($0.prefix { $0 != "<" }) }
        #expect(totals.count == 3 && abs(totals.reduce(0, +) - summary.statistics.timerSeconds) < 0.2, "\(totals)")
        #expect(text.components(separatedBy: "<ns3:LX><ns3:AvgSpeed>").count == 4 && text.contains("<ns3:AvgWatts>"))
        #expect(!text.contains("<Calories>0</Calories>"))
        #expect(text.components(separatedBy: "<Trackpoint>").count - 1 == 1200)
    }

    @Test("GPX: one point a second, valid against the schemas with its extensions", .referenceCorpus)
    func gpx() async throws {
        let (path, _) = try Self.write(.gpx, points: Self.points(rate: 10))
        let (status, said) = try await RideFileSchemas.validate(path, as: .gpx)
        #expect(status == 0, "xmllint: \(said.suffix(5))")
        #expect(try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "<trkpt ").count - 1 == 1200)
    }
}
