import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// ridegate's FIT reader against Garmin's own decoder (garmin-fit-sdk) on every head-unit ride in the reference
/// corpus: the same records with the same values, the same session totals, the same devices.
@Suite(.referenceCorpus) struct FITDecoderTests {
    static let rides = Fixtures.names(in: "rides", ext: "fit")

    @Test("The head-unit rides are found")
    func corpusFound() {
        #expect(!Self.rides.isEmpty)
        Fixtures.report("head-unit rides", cases: Self.rides.count)
    }

    /// What Garmin's SDK reads in a file, as JSON: records (time, lat/lon in semicircles, the rest scaled), the
    /// session's totals and the devices.
    static func garmin(_ path: String) async throws -> [String: Any] {
        let python = ProcessInfo.processInfo.environment["RIDEGATE_FIT_PYTHON"] ?? "/opt/ridegate-test/fit-sdk/bin/python"
        let script = """
            import sys, json, datetime
            from garmin_fit_sdk import Decoder, Stream
            m, e = Decoder(Stream.from_file(sys.argv[1])).read(convert_datetimes_to_dates=False, apply_scale_and_offset=True)
            def rec(r):
                return [r.get('timestamp'), r.get('position_lat'), r.get('position_long'), r.get('enhanced_altitude', r.get('altitude')),
                        r.get('enhanced_speed', r.get('speed')), r.get('distance'), r.get('heart_rate'), r.get('cadence'), r.get('power')]
            s = m.get('session_mesgs', [{}])[0]
            keys = ['total_elapsed_time', 'total_timer_time', 'total_distance', 'avg_power', 'normalized_power', 'total_work',
                    'avg_heart_rate', 'max_heart_rate', 'total_ascent', 'total_calories', 'threshold_power']
            print(json.dumps({'errors': len(e), 'records': [rec(r) for r in m.get('record_mesgs', [])],
                              'session': {k: s.get(k) for k in keys}, 'devices': len(m.get('device_info_mesgs', [])),
                              'events': len(m.get('event_mesgs', [])), 'laps': len(m.get('lap_mesgs', []))}, default=str))
            """
        let process = try ChildProcess(python, ["-c", script, path], captureOutput: true)
        #expect(await process.waitForExit(timeout: TestTime.seconds(60)).flatMap(ChildProcess.exitCode) == 0)
        let output = await process.waitForAllOutput(timeout: 5).last ?? "{}"
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    }

    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    @Test("Every record, the session's totals and the message counts agree with Garmin's FIT SDK", arguments: rides)
    func agreesWithGarmin(ride: String) async throws {
        let path = Fixtures.path("rides/\(ride).fit")
        let file = try FITActivityFile(Fixtures.bytes("rides/\(ride).fit"))
        let theirs = try await Self.garmin(path)
        let records = try #require(theirs["records"] as? [[Any]])
        #expect(file.records.count == records.count, "\(ride): \(file.records.count) records, the SDK \(records.count)")
        var mismatches: [String] = []
        for (ours, r) in zip(file.records, records) {
            func check(_ name: String, _ a: Double?, _ b: Any?, _ tolerance: Double) {
                let b = Self.number(b)
                if (a == nil) != (b == nil) || abs((a ?? 0) - (b ?? 0)) > tolerance { mismatches.append("\(ours.time.iso8601) \(name): \(String(describing: a)) vs \(String(describing: b))") }
            }
            check("time", ours.time.secondsSince1970 - FITActivity.epochOffset, r[0], 0)
            check("lat", ours.latitude.map { $0 * 2_147_483_648 / 180 }, r[1], 0.5)
            check("lon", ours.longitude.map { $0 * 2_147_483_648 / 180 }, r[2], 0.5)
            check("alt", ours.altitude, r[3], 1e-6)
            check("speed", ours.speed, r[4], 1e-6)
            check("distance", ours.distance, r[5], 1e-6)
            check("hr", ours.heartRate.map(Double.init), r[6], 0)
            check("cadence", ours.cadence.map(Double.init), r[7], 0)
            check("power", ours.power.map(Double.init), r[8], 0)
        }
        #expect(mismatches.isEmpty, "\(ride): \(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
        let session = try #require(theirs["session"] as? [String: Any])
        let ourSession = try #require(file.sessions.first)
        let pairs: [(String, Double?)] = [
            ("total_elapsed_time", ourSession.elapsedSeconds), ("total_timer_time", ourSession.timerSeconds),
            ("total_distance", ourSession.distanceMeters), ("avg_power", ourSession.averagePower.map(Double.init)),
            ("normalized_power", ourSession.normalizedPower.map(Double.init)), ("total_work", ourSession.workJoules.map(Double.init)),
            ("avg_heart_rate", ourSession.averageHeartRate.map(Double.init)), ("max_heart_rate", ourSession.maximumHeartRate.map(Double.init)),
            ("total_ascent", ourSession.ascentMeters.map(Double.init)), ("total_calories", ourSession.calories.map(Double.init)),
            ("threshold_power", ourSession.ftp.map(Double.init)),
        ]
        for (key, ours) in pairs {
            let expected = Self.number(session[key])
            #expect((ours == nil) == (expected == nil) && abs((ours ?? 0) - (expected ?? 0)) < 1e-6, "\(ride) \(key): ours \(String(describing: ours)), SDK \(String(describing: expected))")
        }
        #expect(file.devices.count == theirs["devices"] as? Int && file.events.count == theirs["events"] as? Int && file.laps.count == theirs["laps"] as? Int)
    }

    @Test("Damaged files are refused with the reason, never a crash: truncated anywhere, a flipped byte, not FIT at all")
    func damaged() throws {
        let bytes = try Fixtures.bytes("rides/" + (Self.rides.first ?? "") + ".fit")
        #expect(throws: FITDecodingError.notFIT) { try FITDecoder.decode(Array("not a fit file at all".utf8)) }
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            #expect(throws: FITDecodingError.self) { try FITDecoder.decode(Array(bytes[..<cut])) }
        }
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x40
        #expect(throws: FITDecodingError.self) { try FITDecoder.decode(flipped) }
    }
}
