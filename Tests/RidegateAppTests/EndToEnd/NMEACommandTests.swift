import Foundation
import RidegateTestSupport
import Testing

/// `ridegate nmea --json` on every gpsd capture, compared with gpsd's own fixes.
@Suite struct NMEACommandTests {
    static let captures = Fixtures.gpsdCaptures

    @Test("The captures are found", .referenceCorpus) func corpusFound() {
        #expect(!Self.captures.isEmpty, "no *.nmea under \(Fixtures.path("nmea/gpsd"))")
        Fixtures.report("gpsd captures", cases: Self.captures.count)
    }

    /// The `# Date:` header gpsd assumed before the first RMC/ZDA, as YYYY-MM-DD.
    static func headerDate(_ capture: String) -> String? {
        guard let meta = try? String(contentsOfFile: Fixtures.path("nmea/gpsd/\(capture).meta"), encoding: .utf8),
              let line = meta.split(separator: "\n").first(where: { $0.contains("# Date:") }) else { return nil }
        let parts = line.split(separator: ":", maxSplits: 2).last?.trimmingCharacters(in: .whitespaces)
            .prefix { $0 != "T" }.split(separator: "-").compactMap { Int($0) } ?? []
        guard parts.count == 3 else { return nil }
        return String(format: "%04d-%02d-%02d", parts[0], parts[1], parts[2])
    }

    @Test("Agrees with gpsd on every capture: positions, speeds, tracks, altitudes, and epoch times", .referenceCorpus, arguments: captures)
    func agreesWithGpsd(capture: String) async throws {
        var arguments = ["nmea", "--json", Fixtures.path("nmea/gpsd/\(capture).nmea")]
        if let date = Self.headerDate(capture) { arguments += ["--date", date] }
        let process = try ChildProcess(RepositoryPaths.executable, arguments, captureOutput: true)
        let status = await process.waitForExit(timeout: 20)
        #expect(status.flatMap(ChildProcess.exitCode) == 0, "\(capture) must not crash")
        let lines = await process.waitForOutput(timeout: 5) { $0.contains { $0.hasPrefix("summary:") } }
        var ours: [Int: [String: Any]] = [:]
        for line in lines where line.hasPrefix("{") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            if let n = object["line"] as? Int { ours[n] = object }
        }
        let tpvs = try Fixtures.jsonLines("nmea/gpsd/\(capture).tpv.jsonl")
        var problems: [String] = []
        var timesCompared = 0
        var positionsCompared = 0
        var epochsOnOurLines = 0
        let positionSentences: Set<Substring> = ["RMC", "GGA", "GLL", "GNS"]
        for tpv in tpvs {
            guard let n = tpv["line"] as? Int else { continue }
            let gpsdHasPosition = tpv["lat"] != nil && positionSentences.contains((tpv["sentence"] as? String ?? "").suffix(3))
            guard let mine = ours[n], mine["valid"] as? Bool == true else {
                // gpsd took a position from this line: so must we, unless its status says invalid (no fix by the
                // fixtures' rule, though gpsd may repeat an earlier position there: mtk-3301 line 36).
                if gpsdHasPosition, ours[n]?["valid"] as? Bool != false { problems.append("line \(n): gpsd has a position, we have no output") }
                continue
            }
            if gpsdHasPosition {
                if mine["lat"] == nil { problems.append("line \(n): no lat") } else { positionsCompared += 1 }
            }
            // Where gpsd ends an epoch on a line we print, we must give its time. (gpsd often ends an epoch on a
            // sentence with no fix data, BOD or GSV, which `nmea` does not print: no comparison there.)
            if tpv["last_for_time"] as? Bool == true, let theirs = tpv["time"] as? String {
                epochsOnOurLines += 1
                if let mine = mine["time"] as? String {
                    timesCompared += 1
                    // Time of day always; the date too, except where gpsd corrected a week rollover.
                    if mine.dropFirst(11) != theirs.dropFirst(11) || (mine.prefix(4) >= "2000" && mine.prefix(10) != theirs.prefix(10)) {
                        problems.append("line \(n) time: \(mine) vs \(theirs)")
                    }
                } else {
                    problems.append("line \(n): gpsd ends an epoch at \(theirs), we give no time")
                }
            }
            for (key, tolerance) in [("lat", 1e-7), ("lon", 1e-7), ("speed", 1e-3), ("track", 1e-2), ("alt", 1e-2)] {
                guard let a = (mine[key] as? NSNumber)?.doubleValue else { continue }
                guard let b = (tpv[key] as? NSNumber)?.doubleValue else { problems.append("line \(n) \(key): gpsd has none"); continue }
                if abs(a - b) > tolerance + 1e-9 { problems.append("line \(n) \(key): \(a) vs \(b)") }
            }
        }
        #expect(problems.isEmpty, "\(capture): \(problems.count) disagreements: \(problems.prefix(6))")
        // Something was compared wherever gpsd had something to compare against.
        let gpsdPositions = tpvs.filter {
            $0["lat"] != nil && positionSentences.contains(($0["sentence"] as? String ?? "").suffix(3))
                && ours[$0["line"] as? Int ?? 0]?["valid"] as? Bool != false
        }.count
        #expect(positionsCompared == gpsdPositions, "\(capture): compared \(positionsCompared) of gpsd's \(gpsdPositions) positions")
        #expect(timesCompared == epochsOnOurLines, "\(capture): compared \(timesCompared) of \(epochsOnOurLines) epoch times")
    }

    @Test("The summary counts what was rejected")
    func summaryCounts() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-nmea-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("capture.nmea").path
        let text = [NMEAText.sentence("GPRMC,120000.00,A,4000.00000,N,10500.00000,W,1.0,90.0,210626,,,A"),
                    "$GPRMC,120001.00,A,4000.00000,N,10500.00000,W,1.0,90.0,210626,,,A*00",
                    NMEAText.sentence("PGRME,15.0,M,45.0,M,25.0,M"),
                    "$GPGGA,1200" + "$GPRMC,120002.00,A*11",
                    String(repeating: "x", count: 200)].joined(separator: "\r\n") + "\r\n"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let process = try ChildProcess(RepositoryPaths.executable, ["nmea", "--json", file], captureOutput: true)
        let lines = await process.waitForOutput(timeout: 10) { $0.contains { $0.hasPrefix("summary:") } }
        let summary = lines.first { $0.hasPrefix("summary:") } ?? ""
        #expect(summary.contains("RMC=1"))
        #expect(summary.contains("bad_checksum=1"))
        #expect(summary.contains("ignored=1"))
        #expect(summary.contains("collided=1"))
        #expect(lines.filter { $0.hasPrefix("{") }.count == 1)
        #expect(lines.first { $0.hasPrefix("{") }?.contains(#""time":"2026-06-21T12:00:00.000Z""#) == true)
    }
}
