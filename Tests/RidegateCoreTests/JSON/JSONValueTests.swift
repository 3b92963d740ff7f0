import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

@Suite struct JSONValueTests {
    @Test("Objects, arrays, strings with escapes and surrogate pairs, numbers, literals")
    func parses() throws {
        let v = try JSONValue(parsing: #" {"a":[1,-2.5e3,true,false,null],"s":"q\"\\\/\n\u00e9\ud83d\udeb2","o":{}} "#)
        #expect(v["a"]?.array == [.number(1), .number(-2500), .bool(true), .bool(false), .null])
        #expect(v["s"]?.string == "q\"\\/\né🚲")
        #expect(v["o"] == .object([:]))
        #expect(v["missing"] == nil)
        #expect(try JSONValue(parsing: "0").int == 0)
        #expect(try JSONValue(parsing: " [ [ ] , { } ] ") == .array([.array([]), .object([:])]))
    }

    @Test("Every JSON file of toml-test's valid cases parses (documents written by another tool)", .referenceCorpus)
    func tomlTestJSON() throws {
        let cases = TOMLComplianceTests.cases("valid", ext: "json")
        #expect(!cases.isEmpty)
        for path in cases {
            let text = try String(contentsOfFile: TOMLComplianceTests.root + "/" + path, encoding: .utf8)
            #expect(throws: Never.self, "\(path)") { try JSONValue(parsing: text) }
        }
    }

    @Test("Not JSON is refused with where, never a crash", arguments: [
        "", "{", "[1,", "{\"a\" 1}", "{\"a\":}", "01", "1.", "-", "1e", "\"abc", "\"\\x\"", "\"\\ud800\"", "tru", "nul",
        "[1] 2", "[1 2]", "{\"a\":1 \"b\":2}", "{\"a\":1,}", "\"\u{01}\"", String(repeating: "[", count: 100_000),
    ])
    func refuses(text: String) {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: text) }
    }
}
