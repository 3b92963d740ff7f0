import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

@Suite struct HeartRateMeasurementTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var id: String
        var hex: String
        var valid: Bool
        var error: String?
        var strictness: String?
        var bpm: Int?
        var format: String?
        var contact: String?
        var energy: Int?
        var rrRaw: [Int]
        var rrMs: [Double]
        var testDescription: String { id }
    }

    static let vectors: [Vector] = {
        let rows = (try? Fixtures.jsonLines("hr/hr_vectors.jsonl")) ?? []
        return rows.map { row in
            let expected = row["expected"] as? [String: Any]
            return Vector(
                id: row["id"] as? String ?? "?", hex: row["hex"] as? String ?? "", valid: row["valid"] as? Bool ?? false,
                error: row["error"] as? String, strictness: row["strictness"] as? String,
                bpm: expected?["heart_rate_bpm"] as? Int, format: expected?["hr_format"] as? String,
                contact: expected?["sensor_contact"] as? String, energy: expected?["energy_expended_kj"] as? Int,
                rrRaw: expected?["rr_intervals_raw"] as? [Int] ?? [], rrMs: expected?["rr_intervals_ms"] as? [Double] ?? [])
        }
    }()

    // Filtered here, not inside @Test(arguments:): Swift 6.0.3 crashes on closures in macro arguments.
    static let validVectors = vectors.filter(\.valid)
    static let malformedVectors = vectors.filter { !$0.valid && $0.strictness == "spec" }
    static let lenientVectors = vectors.filter { !$0.valid && $0.strictness == "strict" }

    @Test("The vector corpus is found", .referenceCorpus) func corpusFound() {
        #expect(!Self.vectors.isEmpty)
        Fixtures.report("heart-rate vectors", cases: Self.vectors.count)
    }

    @Test("Valid payloads decode to the fixture's fields", .referenceCorpus, arguments: validVectors)
    func decodesValid(_ v: Vector) throws {
        let bytes = try #require([UInt8](hex: v.hex))
        let m = try HeartRateMeasurement(decoding: bytes)
        #expect(m.beatsPerMinute == v.bpm)
        #expect(m.format.rawValue == v.format)
        let contact: String = switch m.sensorContact {
        case .notSupported: "not_supported"
        case .notDetected: "supported_not_detected"
        case .detected: "supported_detected"
        }
        #expect(contact == v.contact)
        #expect(m.energyExpendedKilojoules == v.energy)
        #expect(m.rrIntervalsRaw.map(Int.init) == v.rrRaw)
        for (ours, theirs) in zip(m.rrIntervalsMilliseconds, v.rrMs) { #expect(abs(ours - theirs) < 1e-5) }
        // What we decode, we encode back to the same meaning.
        #expect(try HeartRateMeasurement(decoding: m.encoded) == m)
    }

    @Test("Payloads the spec calls malformed are errors of the named kind", .referenceCorpus,
          arguments: malformedVectors)
    func rejectsMalformed(_ v: Vector) throws {
        let bytes = try #require([UInt8](hex: v.hex))
        #expect(throws: HeartRateMeasurementError.self) { try HeartRateMeasurement(decoding: bytes) }
        do {
            _ = try HeartRateMeasurement(decoding: bytes)
        } catch {
            #expect(error.kind.rawValue == v.error)
            #expect(error.bytes == bytes)
        }
    }

    /// Where the spec leaves rejecting open, the reading is kept: a rider's heart rate is in there.
    @Test("Lenient cases keep the heart rate", .referenceCorpus, arguments: lenientVectors)
    func keepsLenientCases(_ v: Vector) throws {
        let bytes = try #require([UInt8](hex: v.hex))
        let m = try HeartRateMeasurement(decoding: bytes)
        #expect(m.beatsPerMinute == Int(bytes[1]))
        #expect(m.rrIntervalsRaw.isEmpty)
    }

    @Test("Every truncation of a full payload: an error where a field is cut, the readable prefix where whole RR values end")
    func truncations() throws {
        // flags 0x1F: UINT16 heart rate (260), contact, energy (500 kJ), RR 600 and 601 (1/1024 s).
        let full: [UInt8] = [0x1F, 0x04, 0x01, 0xF4, 0x01, 0x58, 0x02, 0x59, 0x02]
        // The RR flag with no values (length 5) is accepted, a documented choice (docs: the strict fixture rows).
        let readable: [Int: [UInt16]] = [5: [], 7: [600], 9: [600, 601]]
        for length in 0...full.count {
            let prefix = Array(full.prefix(length))
            if let rr = readable[length] {
                let m = try HeartRateMeasurement(decoding: prefix)
                #expect(m.beatsPerMinute == 260 && m.energyExpendedKilojoules == 500 && m.rrIntervalsRaw == rr, "length \(length)")
            } else {
                #expect(throws: HeartRateMeasurementError.self, "length \(length)") { try HeartRateMeasurement(decoding: prefix) }
            }
        }
    }

    @Test("The error message names the problem and shows the bytes")
    func errorMessage() {
        do {
            _ = try HeartRateMeasurement(decoding: [0x08, 0x48, 0x10])
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .truncatedEnergyExpended)
            #expect(error.description.contains("084810"))
        }
    }
}
