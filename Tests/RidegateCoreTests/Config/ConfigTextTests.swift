import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// A config's bytes before TOML sees them: size, NUL bytes, nesting — each refused with where and why.
@Suite struct ConfigTextTests {
    func check(_ text: String) -> ConfigError? {
        do throws(ConfigError) {
            _ = try ConfigText.check(Array(text.utf8), file: "c.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test("A real config passes, brackets and dots inside strings and comments do not count")
    func realConfigPasses() {
        #expect(check("""
            device_id = "bike"
            [mqtt]
            host = "pi.local" # [[[[[ a comment with brackets
            [zones]
            percentages = [50, 60, 70, 80, 90]
            [heart_rate]
            straps = ["Polar [H10] *", 'AA:BB:CC:DD:EE:FF']
            note = \"\"\"
            [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h
            \"\"\"
            [a.b.c]
            x = { y = [1, [2, [3]]] }
            """) == nil)
    }

    @Test("A NUL byte: refused with its line and column (a parser would stop there and call the rest valid)")
    func nulByte() throws {
        let error = try #require(check("[mqtt]\nhost = \"a\u{0}b\"\nport = 1\n"))
        #expect(error.line == 2)
        #expect(error.problem.contains("NUL byte at column 10"))
    }

    @Test("A header 10,000 levels deep, arrays nested 10,000 deep: refused on their line, not parsed (it crashed)")
    func deepNesting() throws {
        let header = "[" + Array(repeating: "a", count: 10_000).joined(separator: ".") + "]\nx = 1\n"
        let error = try #require(check("device_id = \"x\"\n" + header))
        #expect(error.line == 2 && error.problem.contains("nested more than 32 levels"))
        let arrays = "x = " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        #expect(try #require(check(arrays)).problem.contains("nested more than 32 levels"))
        let inline = "x = " + String(repeating: "{ a = ", count: 40) + "1" + String(repeating: " }", count: 40) + "\n"
        #expect(check(inline) != nil)
        // 32 levels is still fine.
        #expect(check("[" + Array(repeating: "a", count: 32).joined(separator: ".") + "]\n") == nil)
    }

    @Test("More than 1 MiB: refused before anything else")
    func tooLarge() throws {
        let error = try #require(check(String(repeating: "# padding\n", count: 120_000)))
        #expect(error.problem.contains("larger than 1 MiB"))
    }

    @Test("A table header without a name is refused before the TOML parser sees it (found by fuzzing: `[` alone on a line aborted toml++)")
    func headerWithoutName() {
        for text in ["[\n", "[ \n", "[[\n", "[[[x]]]\n", "[=x]\n", "[\u{1}x]\n", "[{x]\n", "a = 1\n[\n", "[ [x]\n", "a1=1\n[#.b.c.d]", "["] {
            #expect(check(text)?.problem.contains("a table header without a name") == true, "\(text.debugDescription)")
        }
        for text in ["[a]\n", "[ a ]\n", "[[a]]\n", "[\"quoted key\"]\n", "['literal']\n", "[a.\"b\".c]\n", "x = [\n  [1, 2],\n  [ {a = 1} ],\n]\n",
                     "[-a_1]\n", "[[ x ]]\n", "s = \"\"\"\n[\n\"\"\"\n"] {
            #expect(check(text) == nil, "\(text.debugDescription): \(String(describing: check(text)))")
        }
    }

    @Test("Every valid toml-test document passes the checks (they refuse only what TOML refuses or ridegate cannot use)")
    func tomlTestValidPasses() throws {
        let root = Fixtures.path("toml/valid")
        let files = (FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".toml") }
        #expect(files.count > 100, "toml-test's valid cases not found under \(root)")
        for file in files {
            let bytes = try Fixtures.bytes("toml/valid/" + file)
            do throws(ConfigError) {
                _ = try ConfigText.check(bytes, file: file)
            } catch {
                // Dates and times are refused on purpose (no setting takes one); nothing else may be.
                if !error.problem.contains("a date or time value") { Issue.record("\(file): \(error)") }
            }
        }
    }

    @Test("Date and time values never reach the TOML parser (found by fuzzing: a malformed one aborted toml++); in strings they are text")
    func datesAndTimes() {
        for text in ["a = 1987-07-05 0\n", "a = 1979-05-27T07:32:00Z\n", "a = 07:32:00\n", "a = [1979-05-27]\n", "[x]\nt = 12:00\n"] {
            #expect(check(text)?.problem.contains("a date or time value") == true, "\(text.debugDescription)")
        }
        for text in ["a = \"1987-07-05 07:00\"\n", "a = 'http://x:1'\n", "# at 12:00 on 2026-06-21\na = 1\n", "a = 1987\nb = -07\n"] {
            #expect(check(text) == nil, "\(text.debugDescription): \(String(describing: check(text)))")
        }
    }

    @Test("A } closing a [ (or ] closing a {) is refused before toml++, which aborted on it (found by fuzzing)")
    func mismatchedBrackets() {
        for text in ["a = [ {b = 1}, }}\n", "a = [}]\n", "a = [1,\n#c\n}\n", "a = {b = [1}]\n"] {
            #expect(check(text)?.problem.contains("closes a") == true, "\(text.debugDescription)")
        }
        #expect(check("a = [ {b = [1, {c = 2}]}, [3] ]\n") == nil)
    }
}
