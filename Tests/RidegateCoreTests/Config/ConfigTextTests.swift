import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// A config's bytes and text before validation: size and NUL bytes (ConfigText), then what the TOML parser
/// refuses (ConfigDocument) — each with where and why. The hostile inputs are the ones fuzzing found against
/// the TOML library ridegate used before its own parser (toml++ aborted on them).
@Suite struct ConfigTextTests {
    func check(_ text: String) -> ConfigError? {
        do throws(ConfigError) {
            _ = try ConfigDocument.parse(Array(text.utf8), file: "c.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test("A real config passes; brackets and dots inside strings and comments do not count")
    func realConfigPasses() {
        #expect(check("""
            device_id = "bike"
            [mqtt]
            host = "pi.local" # [[[[[ a comment with brackets
            [zones]
            percentages = [50, 60, 70, 80, 90]
            [heart_rate]
            straps = ["Polar [H10] *", 'AA:BB:CC:DD:EE:FF']
            """) == nil)
    }

    @Test("A NUL byte: refused with its line and column (a parser would stop there and call the rest valid)")
    func nulByte() throws {
        let error = try #require(check("[mqtt]\nhost = \"a\u{0}b\"\nport = 1\n"))
        #expect(error.line == 2 && error.column == 10)
        #expect(error.description == "c.toml:2:10: a NUL byte: the file is binary or was cut short while copying (everything after it would be ignored)")
    }

    @Test("A header 10,000 levels deep, arrays nested 10,000 deep: refused with line and column, no crash")
    func deepNesting() throws {
        let header = "[" + Array(repeating: "a", count: 10_000).joined(separator: ".") + "]\nx = 1\n"
        let error = try #require(check("device_id = \"x\"\n" + header))
        #expect(error.line == 2 && error.column != nil && error.problem.contains("nested more than"), "\(error)")
        let arrays = "x = " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        #expect(try #require(check(arrays)).problem.contains("nested more than"))
        let dotted = Array(repeating: "a", count: 10_000).joined(separator: ".") + " = 1\n"
        #expect(try #require(check(dotted)).problem.contains("nested more than"))
    }

    @Test("More than 1 MiB: refused before anything else")
    func tooLarge() throws {
        let error = try #require(check(String(repeating: "# padding\n", count: 120_000)))
        #expect(error.problem.contains("larger than 1 MiB"))
    }

    @Test("A table header without a name: a syntax error at its line and column (it aborted toml++)")
    func headerWithoutName() {
        for text in ["[\n", "[ \n", "[[\n", "[[[x]]]\n", "[=x]\n", "[\u{1}x]\n", "[{x]\n", "a = 1\n[\n", "[ [x]\n", "a1=1\n[#.b.c.d]", "["] {
            let error = check(text)
            #expect(error?.problem.hasPrefix("TOML syntax error: expected a key") == true && error?.column != nil, "\(text.debugDescription): \(String(describing: error))")
        }
        #expect(check("a = 1\n  [ \n")?.description == "c.toml:2:5: TOML syntax error: expected a key (letters, digits, _ and -, or a quoted string), found the end of the line")
    }

    @Test("Date and time values: refused with the key and what to write instead; in strings they are text")
    func datesAndTimes() throws {
        for text in ["a = 1979-05-27T07:32:00Z\n", "a = 07:32:00\n", "a = 1987-07-05\n", "[x]\nt = 12:00:00\n"] {
            #expect(check(text)?.problem.contains("is a date or time; no ridegate setting takes one") == true, "\(text.debugDescription)")
        }
        let malformed = try #require(check("space = 1987-07-05 0\n")) // aborted toml++
        #expect(malformed.line == 1 && malformed.problem.contains("TOML syntax error"), "\(malformed)")
        #expect(check("[mqtt]\nhost = 1979-05-27\n")?.description.hasPrefix("c.toml:2:1: mqtt.host: 1979-05-27 is a date or time") == true)
        for text in ["[mqtt]\nusername = \"1987-07-05 07:00\"\n", "[mqtt]\nusername = 'http://x:1'\n", "# at 12:00 on 2026-06-21\ndevice_id = \"a\"\n"] {
            #expect(check(text) == nil, "\(text.debugDescription): \(String(describing: check(text)))")
        }
    }

    @Test("A } closing a [ (or ] closing a {): a syntax error with line and column (it aborted toml++)")
    func mismatchedBrackets() {
        for text in ["a = [ {b = 1}, }}\n", "a = [}]\n", "a = [1,\n#c\n}\n", "a = {b = [1}]\n"] {
            let error = check(text)
            #expect(error?.problem.hasPrefix("TOML syntax error") == true && error?.column != nil, "\(text.debugDescription)")
        }
    }

    @Test("Syntax errors name the exact line and column, counting characters (not bytes)")
    func exactPositions() {
        #expect(check("[mqtt]\nhost = \"pi\" port = 1\n")?.description
            == "c.toml:2:13: TOML syntax error: expected the end of the line after the value, found 'p' (one key = value per line; # starts a comment)")
        #expect(check("device_id = \"é\" x\n")?.column == 17)
        #expect(check("[mqtt]\nport = 0x\n")?.description == "c.toml:2:8: TOML syntax error: 0x is not a TOML value (quote text: \"0x\"; numbers, true/false, dates and times are bare)")
        #expect(check("[mqtt]\nport = 1883\nport = 1884\n")?.description == "c.toml:3:1: TOML syntax error: the key mqtt.port is defined twice (first on line 2)")
        #expect(check("a = \"\\q\"\n")?.description == "c.toml:1:6: TOML syntax error: unknown escape \\q (TOML's are \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)")
    }
}
