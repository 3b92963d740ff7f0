import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The cycling fixtures (`../shared/fixtures/cycling`): every vector decoded field by field, every sequence's
/// derived cadence and wheel speed, and the error kind of every malformed value.
@Suite(.referenceCorpus) struct CyclingMeasurementTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var id: String
        var kind: String
        var hex: String
        var valid: Bool
        var error: String?
        /// Expected fields as text, compared numerically where they are numbers.
        var expected: [String: String]
        var testDescription: String { id }
    }

    static func text(_ value: Any) -> String {
        if let n = value as? NSNumber { return n.stringValue } // JSON true/false arrive as 1/0 on Linux
        return String(describing: value)
    }

    static let vectors: [Vector] = {
        guard let rows = try? Fixtures.jsonLines("cycling/cycling_vectors.jsonl") else { return [] }
        return rows.map { row in
            Vector(id: row["id"] as? String ?? "?", kind: row["kind"] as? String ?? "?", hex: row["hex"] as? String ?? "",
                   valid: row["valid"] as? Bool ?? false, error: row["error"] as? String,
                   expected: (row["expected"] as? [String: Any] ?? [:]).mapValues(text))
        }
    }()

    static func decode(_ kind: String, _ bytes: [UInt8]) -> Result<[CyclingField], CyclingMeasurementError> {
        do throws(CyclingMeasurementError) {
            return .success(kind == "csc" ? try CyclingSpeedCadenceMeasurement(decoding: bytes).fields
                                          : try CyclingPowerMeasurement(decoding: bytes).fields)
        } catch {
            return .failure(error)
        }
    }

    @Test("Every valid vector encodes back to itself: what the simulated sensors send is what a real one would (the fuzzer found the power encoder dropping the pedal balance)", arguments: vectors)
    func roundTrip(_ v: Vector) throws {
        let bytes = [UInt8](hex: v.hex) ?? []
        if v.kind == "csc", let m = try? CyclingSpeedCadenceMeasurement(decoding: bytes) {
            #expect(try CyclingSpeedCadenceMeasurement(decoding: m.encoded) == m, "\(v.id)")
        } else if v.kind != "csc", let m = try? CyclingPowerMeasurement(decoding: bytes) {
            #expect(try CyclingPowerMeasurement(decoding: m.encoded) == m, "\(v.id)")
        }
    }

    @Test("The vector corpus is found, with both kinds")
    func corpusFound() {
        #expect(Set(Self.vectors.map(\.kind)) == ["csc", "power"], "\(Self.vectors.count) vectors")
        Fixtures.report("cycling vectors", cases: Self.vectors.count)
    }

    @Test("Every vector: the fields its flags announce, with the expected values, or the expected error", arguments: vectors)
    func vector(_ v: Vector) throws {
        let bytes = try #require([UInt8](hex: v.hex.isEmpty ? "" : v.hex) ?? (v.hex.isEmpty ? [] : nil))
        switch Self.decode(v.kind, bytes) {
        case .success(let fields):
            #expect(v.valid, "\(v.id) should have failed with \(v.error ?? "?")")
            var ours: [String: String] = [:]
            for f in fields { ours[f.key] = f.formatted }
            // offset_compensation: "true, or false/absent" (fixtures README); we always say it for power.
            var theirs = v.expected
            if v.kind == "power", theirs["offset_compensation"] == nil { theirs["offset_compensation"] = "0" }
            #expect(Set(ours.keys) == Set(theirs.keys), "\(v.id): keys \(ours.keys.sorted()) vs \(theirs.keys.sorted())")
            for (key, expected) in theirs {
                guard let mine = ours[key] else { continue }
                if mine == "true" || mine == "false" {
                    #expect((mine == "true" ? "1" : "0") == expected, "\(v.id).\(key): \(mine) vs \(expected)")
                } else if let a = Double(mine), let b = Double(expected) {
                    #expect(abs(a - b) <= 1e-6, "\(v.id).\(key): \(mine) vs \(expected)")
                } else {
                    #expect(mine == expected, "\(v.id).\(key): \(mine) vs \(expected)")
                }
            }
        case .failure(let error):
            #expect(!v.valid, "\(v.id): \(error)")
            #expect(error.kind.rawValue == v.error, "\(v.id): \(error.kind.rawValue) vs \(v.error ?? "valid")")
            #expect(error.bytes == bytes)
        }
    }

    struct Sequence: Sendable, CustomTestStringConvertible {
        var id: String
        var kind: String
        var wheelMM: Double
        var hex: [String]
        var derived: [[String: Double]?]
        var testDescription: String { id }
    }

    static let sequences: [Sequence] = {
        guard let rows = try? Fixtures.jsonLines("cycling/cycling_sequences.jsonl") else { return [] }
        return rows.map { row in
            Sequence(id: row["id"] as? String ?? "?", kind: row["kind"] as? String ?? "?", wheelMM: (row["wheel_mm"] as? NSNumber)?.doubleValue ?? 0,
                     hex: row["hex"] as? [String] ?? [],
                     derived: (row["derived"] as? [Any] ?? []).map { ($0 as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.doubleValue } })
        }
    }()

    @Test("The sequence corpus is found") func sequencesFound() {
        #expect(!Self.sequences.isEmpty)
        Fixtures.report("cycling sequences", cases: Self.sequences.count)
    }

    @Test("Every sequence: cadence and wheel speed between successive values, across counter and event-time wraps", arguments: sequences)
    func sequence(_ s: Sequence) throws {
        var decoder = CyclingDecodeSequence(kind: s.kind == "csc" ? .csc : .power, wheelCircumferenceMillimetres: s.wheelMM)
        #expect(s.hex.count == s.derived.count && s.hex.count >= 3)
        for (index, hex) in s.hex.enumerated() {
            let bytes = try #require([UInt8](hex: hex))
            guard case .decoded(let fields) = decoder.decode(bytes) else {
                Issue.record("\(s.id) value \(index) did not decode")
                continue
            }
            var derived: [String: Double] = [:]
            for f in fields where f.key == "cadence_rpm" || f.key == "wheel_speed_mps" { derived[f.key] = Double(f.formatted) }
            let expected = s.derived[index] ?? [:]
            #expect(Set(derived.keys) == Set(expected.keys), "\(s.id) value \(index): \(derived) vs \(expected)")
            for (key, value) in expected {
                #expect(abs((derived[key] ?? .nan) - value) <= 1e-5, "\(s.id) value \(index) \(key): \(derived[key] ?? .nan) vs \(value)")
            }
        }
    }
}
