import Foundation
import RidegateTestSupport
import Testing

/// The demo's ride files read back by readers that are not ridegate's: gpxpy, python-tcxparser, Garmin's FIT
/// SDK and gpsbabel, each held against what the ride log recorded.
extension RideFilesTests {
    struct Recorded {
        let state: String
        let points: Int
        let distance: Double
        /// What the demo said of its sensors (a late start without one, a loss): why points may lack a reading.
        var sensorLog: [String] = []
    }

    /// `rides export latest` in `format`, into the state directory; the file's path.
    func export(_ format: String, _ recorded: Recorded) async throws -> String {
        let file = recorded.state + "/ride." + format
        let (status, said) = try await run(["rides", "export", "latest", "--format", format, "--output", file, "--state-directory", recorded.state])
        #expect(status == 0, "\(said)")
        return file
    }

    func expectGPXReadsBack(_ gpx: String, _ recorded: Recorded) async throws {
        let points = recorded.points, distance = recorded.distance
        let reader = try ChildProcess(Self.python, ["-c", """
            import sys, gpxpy
            g = gpxpy.parse(open(sys.argv[1]))
            pts = [p for t in g.tracks for s in t.segments for p in s.points]
            ext = lambda p, name: any(name in e.tag for e in p.extensions for e in e.iter())
            print(len(pts), round(g.length_2d(), 1), sum(ext(p, 'hr') for p in pts), sum(ext(p, 'cad') for p in pts),
                  sum(ext(p, 'PowerInWatts') for p in pts), g.tracks[0].type)
            """, gpx], captureOutput: true)
        #expect(await reader.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        let fields = (await reader.waitForAllOutput(timeout: 5)).last?.split(separator: " ").map(String.init) ?? []
        try #require(fields.count == 6, "gpxpy said \(reader.lines)")
        #expect(Self.oneASecond(Int(fields[0]), of: points), "gpxpy read \(fields[0]) points, \(points) recorded")
        let length = try #require(Double(fields[1]))
        #expect(abs(length - distance) / distance < 0.02, "gpxpy \(length) m, rides list \(distance) m")
        // The strap and the power meter connect a moment after the first fixes: nearly every point has them.
        print("gpxpy: \(fields[0]) points, heart rate on \(fields[2]), cadence on \(fields[3]), power on \(fields[4])")
        #expect(Double(Int(fields[2]) ?? 0) > Double(points) * 0.95, "hr on \(fields[2]) of \(points); \(recorded.sensorLog)")
        #expect(Double(Int(fields[3]) ?? 0) > Double(points) * 0.9, "cadence on \(fields[3]) of \(points); \(recorded.sensorLog)")
        #expect(Double(Int(fields[4]) ?? 0) > Double(points) * 0.95, "power on \(fields[4]) of \(points); \(recorded.sensorLog)")
        #expect(fields[5] == "cycling")
    }

    /// python-tcxparser (PyPI, in the readers' virtualenv): distance, heart rate on every point that had it, cadence.
    func expectTCXReadsBack(_ tcx: String, _ recorded: Recorded) async throws {
        let points = recorded.points, distance = recorded.distance
        let tcxReader = try ChildProcess(Self.readersPython, ["-c", """
            import sys, tcxparser
            t = tcxparser.TCXParser(sys.argv[1])
            print(t.activity_type, round(float(t.distance), 1), len(t.position_values()), len(t.hr_values()), t.hr_max, t.cadence_avg)
            """, tcx], captureOutput: true)
        #expect(await tcxReader.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        let parsed = (await tcxReader.waitForAllOutput(timeout: 5)).last?.split(separator: " ").map(String.init) ?? []
        try #require(parsed.count == 6, "tcxparser said \(tcxReader.lines)")
        #expect(parsed[0] == "biking")
        #expect(abs((Double(parsed[1]) ?? 0) - distance) / distance < 0.01, "tcxparser \(parsed[1]) m, rides list \(distance) m")
        #expect(Self.oneASecond(Int(parsed[2]), of: points) && Double(Int(parsed[3]) ?? 0) > Double(points) * 0.95)
        #expect((Int(parsed[4]) ?? 0) > 100 && (Int(parsed[5]) ?? 0) > 50)
    }

    /// The readers' virtualenv (garmin-fit-sdk, python-tcxparser; scripts/test installs it).
    static var readersPython: String {
        ProcessInfo.processInfo.environment["RIDEGATE_FIT_PYTHON"] ?? "/opt/ridegate-test/fit-sdk/bin/python"
    }

    /// FIT, through Garmin's own decoder: integrity (header and file CRC), no errors, every point with its heart
    /// rate, the session's distance as listed; about thirty times smaller than the TCX.
    func expectFITSDKReadsBack(_ fit: String, tcx: String, _ recorded: Recorded) async throws {
        let points = recorded.points, distance = recorded.distance
        guard FileManager.default.isExecutableFile(atPath: Self.readersPython) else {
            Issue.record("Garmin's FIT SDK is not installed at \(Self.readersPython): run ./scripts/test (it installs it)")
            return
        }
        let decoder = try ChildProcess(Self.readersPython, ["-c", """
            import sys
            from garmin_fit_sdk import Decoder, Stream
            d = Decoder(Stream.from_file(sys.argv[1]))
            ok = d.is_fit() and d.check_integrity()
            m, e = Decoder(Stream.from_file(sys.argv[1])).read()
            r = m.get('record_mesgs', [])
            s = m.get('session_mesgs', [{}])[0]
            print(ok, len(e), len(r), sum(1 for x in r if x.get('heart_rate')), round(s.get('total_distance', 0), 1), s.get('sport'))
            """, fit], captureOutput: true)
        #expect(await decoder.waitForExit(timeout: TestTime.seconds(60)).flatMap(ChildProcess.exitCode) == 0)
        let said = (await decoder.waitForAllOutput(timeout: 5)).last?.split(separator: " ").map(String.init) ?? []
        try #require(said.count == 6, "the FIT SDK said \(decoder.lines)")
        #expect(said[0] == "True" && said[1] == "0", "integrity \(said[0]), \(said[1]) errors")
        #expect(Self.oneASecond(Int(said[2]), of: points))
        #expect(Double(Int(said[3]) ?? 0) > Double(points) * 0.95)
        #expect(abs((Double(said[4]) ?? 0) - distance) < 1, "session \(said[4]) m, listed \(distance) m")
        #expect(said[5] == "cycling")
        let fitSize = try FileManager.default.attributesOfItem(atPath: fit)[.size] as? Int ?? 0
        let tcxSize = try FileManager.default.attributesOfItem(atPath: tcx)[.size] as? Int ?? 1
        #expect(fitSize * 10 < tcxSize, "FIT \(fitSize) bytes, TCX \(tcxSize)")
    }

    /// gpsbabel, a second reader of every format: every point, heart rate on them, power in TCX.
    func expectGPSBabelReadsBack(_ format: String, _ file: String, _ recorded: Recorded) async throws {
        let points = recorded.points
        let babel = try ChildProcess(try Executables.find("gpsbabel", hint: "apt-get install gpsbabel").path,
                                     ["-t", "-i", format, "-f", file, "-o", "unicsv", "-F", "-"], captureOutput: true)
        #expect(await babel.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        // From the CSV's header on (gpsbabel may first warn about the locale on stderr).
        let rows = Array((await babel.waitForAllOutput(timeout: 5)).drop { !$0.hasPrefix("No,") })
        let header = rows.first?.split(separator: ",").map(String.init) ?? []
        let hr = try #require(header.firstIndex(of: "Heartrate"), "\(format): \(header)")
        let data = rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(Self.oneASecond(data.count, of: points), "\(format): \(data.count) points read, \(points) recorded")
        #expect(Double(data.filter { Int($0[hr]) ?? 0 > 0 }.count) > Double(points) * 0.95, "\(format): heart rate missing")
        guard format == "gtrnctr" else { return }
        let power = try #require(header.firstIndex(of: "Power"), "gpsbabel read no Power column from the TCX: \(header)")
        #expect(Double(data.filter { Double($0[power]) ?? 0 > 0 }.count) > Double(points) * 0.5, "tcx: power missing")
    }
}
