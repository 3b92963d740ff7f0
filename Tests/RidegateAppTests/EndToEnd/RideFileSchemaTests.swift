import Foundation
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// What `ridegate rides export` writes is valid against the published schemas, extensions included: GPX 1.1
/// with Garmin's TrackPointExtension and PowerExtension, TCX v2 with ActivityExtension v2 (the schemas are in
/// the reference corpus).
@Suite(.referenceCorpus) struct RideFileSchemaTests {
    /// A ride log with one 20-minute ride: 1 Hz fixes with altitude and speed, heart rate, cadence and power,
    /// a 2-minute stop in the middle and a strap that drops out for a minute.
    static func rideLog() throws -> String {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rg-schema-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let store = try SQLiteRideStore(path: state + "/rides.sqlite")
        var points: [RidePoint] = []
        var distance = 0.0
        for second in 0..<1200 {
            let stopped = (600..<720).contains(second)
            let speed = stopped ? 0 : 8 + Double(second % 30) / 10
            distance += speed
            points.append(RidePoint(
                time: Timestamp(secondsSince1970: 1_782_057_600 + Double(second)), latitude: 40 + distance / 111_195, longitude: -105.27,
                altitude: 1650 + Double(second % 200) / 4, speed: speed, distance: distance,
                    heartRate: (300..<360).contains(second) ? nil : 120 + second % 40, cadence: stopped ? nil : 85,
                    power: stopped ? nil : 150 + second % 100))
        }
        try store.record(points)
        return state
    }

    func export(_ format: String, from state: String) async throws -> String {
        let file = state + "/ride." + format
        let process = try ChildProcess(RepositoryPaths.executable,
                                       ["rides", "export", "latest", "--format", format, "--output", file, "--state-directory", state], captureOutput: true)
        let status = await process.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode)
        let said = await process.waitForAllOutput(timeout: 5)
        #expect(status == 0, "\(said)")
        return file
    }

    @Test("GPX: valid against GPX 1.1 with TrackPointExtension and PowerExtension, which it uses")
    func gpxValid() async throws {
        let state = try Self.rideLog()
        let gpx = try await export("gpx", from: state)
        let (status, said) = try await RideFileSchemas.validate(gpx, as: .gpx)
        #expect(status == 0, "xmllint: \(said.suffix(5))")
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        #expect(text.contains("<gpxtpx:TrackPointExtension><gpxtpx:hr>") && text.contains("<pwr:PowerInWatts>"))
    }

    @Test("TCX: valid against TrainingCenterDatabase v2 with ActivityExtension v2, which it uses")
    func tcxValid() async throws {
        let state = try Self.rideLog()
        let tcx = try await export("tcx", from: state)
        let (status, said) = try await RideFileSchemas.validate(tcx, as: .tcx)
        #expect(status == 0, "xmllint: \(said.suffix(5))")
        let text = try String(contentsOfFile: tcx, encoding: .utf8)
        #expect(text.contains("<ns3:TPX><ns3:Speed>") && text.contains("<ns3:Watts>"))
    }

    @Test("A file that breaks an extension's schema is refused: the check really reads the extensions")
    func extensionsChecked() async throws {
        let state = try Self.rideLog()
        let gpx = try await export("gpx", from: state)
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        // Heart rate is an unsigned byte in TrackPointExtension v1.
        try text.replacingOccurrences(of: "<gpxtpx:hr>", with: "<gpxtpx:hr>9").write(toFile: gpx, atomically: true, encoding: .utf8)
        let gpxStatus = try await RideFileSchemas.validate(gpx, as: .gpx).status
        #expect(gpxStatus != 0)
        let tcx = try await export("tcx", from: state)
        let tcxText = try String(contentsOfFile: tcx, encoding: .utf8)
        try tcxText.replacingOccurrences(of: "<ns3:Watts>", with: "<ns3:Watts>-").write(toFile: tcx, atomically: true, encoding: .utf8)
        let tcxStatus = try await RideFileSchemas.validate(tcx, as: .tcx).status
        #expect(tcxStatus != 0)
    }
}

/// `rides export --output` names a file: a directory, a device or a FIFO is refused before anything is read or
/// written, and nothing is left beside it.
@Suite struct RideExportTargetTests {
    @Test("--output naming a directory, a FIFO or a device: exit 64 with what to write instead, no temporary file left")
    func refusesNonFiles() async throws {
        let state = try RideFileSchemaTests.rideLog()
        let dir = state + "/out"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(mkfifo(state + "/fifo", 0o600) == 0)
        for (target, what) in [(dir, "a directory"), (state + "/fifo", "a FIFO"), ("/dev/null", "a device")] {
            let process = try ChildProcess(RepositoryPaths.executable,
                                           ["rides", "export", "latest", "--format", "fit", "--output", target, "--state-directory", state], captureOutput: true)
            #expect(await process.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 64)
            let said = await process.waitForAllOutput(timeout: 5).joined(separator: " ")
            #expect(said.contains("it is \(what)") && said.contains("Name a file"), "\(said)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.contains("tmp") }.isEmpty)
        let (listed, lines) = try await listJSON(state)
        #expect(listed == 0 && lines.contains(#""exported":[]"#), "a refused export marked the ride exported: \(lines)")
    }

    func listJSON(_ state: String) async throws -> (Int32?, String) {
        let process = try ChildProcess(RepositoryPaths.executable, ["rides", "list", "--json", "--state-directory", state], captureOutput: true)
        let status = await process.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode)
        return (status, (await process.waitForAllOutput(timeout: 5)).joined())
    }
}
