import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// ridegate's own TOML parser against toml-test's TOML 1.0 cases (`../shared/fixtures/toml`): every valid
/// document parses and equals its tagged JSON; every invalid one is refused. The directories are enumerated,
/// so cases added there are run too.
@Suite(.referenceCorpus) struct TOMLComplianceTests {
    static let root = Fixtures.path("toml")

    static func cases(_ kind: String, ext: String = "toml") -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root + "/" + kind) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix("." + ext) }.sorted().map { kind + "/" + $0 }
    }

    @Test("Every valid case parses and equals its JSON")
    func valid() throws {
        let cases = Self.cases("valid")
        #expect(!cases.isEmpty, "no valid cases found under \(Self.root)")
        Fixtures.report("TOML valid", cases: cases.count)
        var failures: [String] = []
        for name in cases {
            let bytes = try Fixtures.bytes("toml/" + name)
            let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + name.dropLast(5) + ".json")),
                                                            options: [.fragmentsAllowed])
            do {
                let parsed = try TOMLParser.parse(bytes: bytes)
                if let difference = Self.difference(parsed, expected, path: "") { failures.append("\(name): \(difference)") }
            } catch {
                failures.append("\(name): refused: \(error)")
            }
        }
        print("TOMLCompliance: \(cases.count - failures.count) of \(cases.count) valid cases pass")
        #expect(failures.isEmpty, "\(failures.count) valid cases fail:\n\(failures.joined(separator: "\n"))")
    }

    @Test("Every invalid case is refused, with a line and column")
    func invalid() throws {
        let cases = Self.cases("invalid")
        #expect(!cases.isEmpty, "no invalid cases found under \(Self.root)")
        Fixtures.report("TOML invalid", cases: cases.count)
        var accepted: [String] = []
        for name in cases {
            let bytes = try Fixtures.bytes("toml/" + name)
            do throws(TOMLError) {
                _ = try TOMLParser.parse(bytes: bytes)
                accepted.append(name)
            } catch {
                #expect(error.position.line >= 1 && error.position.column >= 1)
            }
        }
        print("TOMLCompliance: \(cases.count - accepted.count) of \(cases.count) invalid cases refused")
        #expect(accepted.isEmpty, "\(accepted.count) invalid cases accepted:\n\(accepted.joined(separator: "\n"))")
    }

    /// Where `node` differs from toml-test's tagged JSON, or nil.
    static func difference(_ node: TOMLNode, _ json: Any, path: String) -> String? {
        switch node.value {
        case .table(let table):
            guard let object = json as? [String: Any], !isTagged(object) else { return "\(path): a table, expected \(json)" }
            if Set(table.keys) != Set(object.keys) { return "\(path): keys \(table.keys.sorted()), expected \(object.keys.sorted())" }
            for (key, child) in table {
                if let d = difference(child, object[key] as Any, path: path + "." + key) { return d }
            }
            return nil
        case .array(let items):
            guard let array = json as? [Any], array.count == items.count else { return "\(path): \(items.count) items, expected \(json)" }
            for (i, item) in items.enumerated() {
                if let d = difference(item, array[i], path: path + "[\(i)]") { return d }
            }
            return nil
        default:
            guard let object = json as? [String: Any], isTagged(object), let type = object["type"] as? String,
                  let value = object["value"] as? String else { return "\(path): a value, expected \(json)" }
            let (ownType, ownValue) = tagged(node.value)
            guard ownType == type else { return "\(path): \(ownType), expected \(type)" }
            switch type {
            case "float":
                let a = Double(ownValue) ?? .nan, b = value == "inf" ? Double.infinity : value == "-inf" ? -.infinity : Double(value) ?? .nan
                return (a.isNaN && b.isNaN) || a == b ? nil : "\(path): \(ownValue), expected \(value)"
            case "datetime", "datetime-local", "date-local", "time-local":
                return normalized(ownValue) == normalized(value) ? nil : "\(path): \(ownValue), expected \(value)"
            default:
                return ownValue == value ? nil : "\(path): \(ownValue.debugDescription), expected \(value.debugDescription)"
            }
        }
    }

    static func isTagged(_ object: [String: Any]) -> Bool {
        Set(object.keys) == ["type", "value"] && object["value"] is String && object["type"] is String
    }

    static func tagged(_ value: TOMLNode.Value) -> (String, String) {
        switch value {
        case .string(let s): ("string", s)
        case .integer(let i): ("integer", String(i))
        case .float(let d): ("float", d.isNaN ? "nan" : d == .infinity ? "inf" : d == -.infinity ? "-inf" : String(d))
        case .bool(let b): ("bool", b ? "true" : "false")
        case .dateTime(let t): (t.kind, t.text)
        case .array, .table: ("?", "")
        }
    }

    /// RFC 3339 written either way: `T` or space, `z` or `Z`, `+00:00` as `Z`, trailing fraction zeros dropped.
    static func normalized(_ text: String) -> String {
        var s = text.uppercased().replacingOccurrences(of: " ", with: "T")
        if s.hasSuffix("+00:00") || s.hasSuffix("-00:00") { s = String(s.dropLast(6)) + "Z" }
        if let dot = s.firstIndex(of: ".") {
            let digits = s[s.index(after: dot)...].prefix { $0.isNumber }
            let trimmed = digits.reversed().drop { $0 == "0" }.reversed()
            s = String(s[..<dot]) + (trimmed.isEmpty ? "" : "." + String(trimmed)) + s[s.index(after: dot)...].dropFirst(digits.count)
        }
        return s
    }
}
