import Foundation
import RidegateTestSupport
import Testing

/// `ridegate csc decode` and `ridegate power decode` through the built binary on every cycling fixture: the
/// JSON contract (field names, absent fields, derived values, errors and exit 65) other tools rely on.
@Suite struct CyclingCommandTests {
    static var vectors: [[String: Any]] { (try? Fixtures.jsonLines("cycling/cycling_vectors.jsonl")) ?? [] }
    static var sequences: [[String: Any]] { (try? Fixtures.jsonLines("cycling/cycling_sequences.jsonl")) ?? [] }
    static let vectorIDs = vectors.compactMap { $0["id"] as? String }
    static let sequenceIDs = sequences.compactMap { $0["id"] as? String }

    static func run(_ arguments: [String]) async throws -> (status: Int32?, lines: [String]) {
        let process = try ChildProcess(RepositoryPaths.executable, arguments, captureOutput: true)
        let status = await process.waitForExit(timeout: 10).flatMap(ChildProcess.exitCode)
        return (status, await process.waitForAllOutput(timeout: 5))
    }

    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    @Test("Both corpora are found", .referenceCorpus)
    func corpora() {
        #expect(!Self.vectorIDs.isEmpty && !Self.sequenceIDs.isEmpty)
        Fixtures.report("cycling vectors", cases: Self.vectorIDs.count)
        Fixtures.report("cycling sequences", cases: Self.sequenceIDs.count)
    }

    @Test("Every vector through the binary: its fields and no others, or exit 65 with the error kind", .referenceCorpus, arguments: vectorIDs)
    func vector(id: String) async throws {
        let row = try #require(Self.vectors.first { $0["id"] as? String == id })
        let kind = try #require(row["kind"] as? String)
        let (status, lines) = try await Self.run([kind, "decode", row["hex"] as? String ?? "", "--json"])
        let json = lines.filter { $0.hasPrefix("{") }
        #expect(json.count == 1, "\(id): \(lines)")
        let out = try #require(json.first.flatMap(Self.object))
        if row["valid"] as? Bool == true {
            #expect(status == 0)
            var expected = row["expected"] as? [String: Any] ?? [:]
            if kind == "power", expected["offset_compensation"] == nil { expected["offset_compensation"] = false }
            #expect(Set(out.keys) == Set(expected.keys), "\(id): \(out.keys.sorted()) vs \(expected.keys.sorted())")
            for (key, value) in expected {
                if let a = (out[key] as? NSNumber)?.doubleValue, let b = (value as? NSNumber)?.doubleValue {
                    #expect(abs(a - b) <= 1e-6, "\(id).\(key): \(a) vs \(b)")
                } else {
                    #expect(String(describing: out[key] ?? "absent") == String(describing: value), "\(id).\(key)")
                }
            }
        } else {
            #expect(status == 65, "\(id): exit \(String(describing: status))")
            #expect(out.keys.sorted() == ["error"] && out["error"] as? String == row["error"] as? String, "\(id): \(out)")
            #expect(lines.contains { $0.hasPrefix("ridegate: ") }, "\(id): no message on stderr")
        }
    }

    @Test("Every sequence through the binary: one object per value, derived cadence and wheel speed from the second on",
          .referenceCorpus, arguments: sequenceIDs)
    func sequence(id: String) async throws {
        let row = try #require(Self.sequences.first { $0["id"] as? String == id })
        let hex = try #require(row["hex"] as? [String])
        let wheel = try #require((row["wheel_mm"] as? NSNumber)?.intValue)
        let (status, lines) = try await Self.run([row["kind"] as? String ?? "", "decode"] + hex + ["--wheel-mm", String(wheel), "--json"])
        #expect(status == 0)
        let objects = lines.compactMap(Self.object)
        #expect(objects.count == hex.count)
        let derived = row["derived"] as? [Any] ?? []
        for (index, object) in objects.enumerated() {
            let expected = derived.indices.contains(index) ? derived[index] as? [String: Any] : nil
            for key in ["cadence_rpm", "wheel_speed_mps"] {
                let ours = (object[key] as? NSNumber)?.doubleValue
                let theirs = (expected?[key] as? NSNumber)?.doubleValue
                #expect((ours == nil) == (theirs == nil), "\(id) value \(index) \(key): \(String(describing: ours)) vs \(String(describing: theirs))")
                if let ours, let theirs { #expect(abs(ours - theirs) <= 1e-5, "\(id) value \(index) \(key)") }
            }
        }
    }

    @Test("Without --json: a readable table; bad hex or a wheel size out of range is a usage error (64)")
    func tableAndUsage() async throws {
        let (status, lines) = try await Self.run(["csc", "decode", "0300000000000000000000", "030300000066060100ab02"])
        #expect(status == 0)
        #expect(lines.contains { $0.hasPrefix("cadence") && $0.hasSuffix("rpm") && $0.contains("89.95") })
        #expect(lines.contains { $0.hasPrefix("wheel speed") && $0.hasSuffix("m/s") && $0.contains("3.94") })
        let bad = try await Self.run(["power", "decode", "zz"])
        #expect(bad.status == 64 && bad.lines.contains { $0.contains("'zz' is not hex") })
        let wheel = try await Self.run(["csc", "decode", "00", "--wheel-mm", "20"])
        #expect(wheel.status == 64 && wheel.lines.contains { $0.contains("'--wheel-mm'") })
    }
}
