import RidegateCore
import Testing

/// TOML corners beyond the shared fixtures: table definition rules, numbers, strings, dates, line ends.
@Suite struct TOMLParserTests {
    func accepts(_ text: String) -> Bool { (try? TOMLParser.parse(text)) != nil }

    func value(_ text: String, _ key: String = "a") throws -> TOMLNode.Value? {
        guard case .table(let table) = try TOMLParser.parse(text).value else { return nil }
        return table[key]?.value
    }

    @Test("Valid documents", arguments: [
        "[a.b.c]\n[a.b]\n[a]\n",                     // super-tables after sub-tables
        "[a]\nx.y = 1\n[a.x.z]\n",                   // a sub-table of a dotted table
        "[a.b.c]\n[a]\nb.d = 1\n",                   // dotted keys into an implicitly created table
        "a = {b.c = 1, b.d = 2}\n",                  // dotted keys inside one inline table
        "a = { b = [\n 1,\n 2,\n] }\n",              // an array inside an inline table may span lines
        "[[a]]\n[a.b]\n[[a]]\n[a.b]\n",              // a sub-table per array element
        "\"\" = 1\n'k' .x = 2\n",                    // an empty quoted key; spaces around a dot
        "a = \"\"\"\"one\"\"\"\"\n",                 // quotes next to the delimiters
        "a = '''''two'''''\n",
        "a = \"\"\"\\\n   \\\n  x\"\"\"\n",          // line-ending backslashes in a row
        "a = 1\r\nb = 2\r\n",                        // CRLF
        "a = 1 # comment\r\n",
        "a = 2000-02-29\nb = 1979-05-27 07:32:00\nc = 23:59:60\n", // a leap day, a leap second
        "a = -0\nb = +0.0\nc = 1e06\nd = 0xDEAD_beef\ne = -9223372036854775808\n",
    ])
    func valid(_ text: String) {
        #expect(accepts(text), "\(text.debugDescription)")
    }

    @Test("Invalid documents", arguments: [
        "[a]\nb.c = 1\n[a.b]\n",                     // a header over a dotted table
        "a.b = 1\n[a]\n",
        "[a.b]\n[a]\nb = 1\n",                       // a key over a table
        "a = {}\n[a.b]\n",                           // extending an inline table
        "a = {b = {c = 1}, b.d = 2}\n",
        "a = []\n[[a]]\n",                           // appending to a static array
        "[[a]]\n[a]\n",
        "[a]\n[[a]]\n",
        "a = { b = 1, }\n",                          // trailing comma in an inline table
        "a = { b = 1\n}\n",                          // a line end between inline-table entries
        "a = 1\rb = 2\n",                            // a bare carriage return
        "a = \"\\ud800\"\n",                         // a surrogate
        "a = \"\\U00110000\"\n",
        "a = '''''''''\n",                           // six quotes after the opening three
        "a = 2001-02-29\n", "a = 1979-05-27T24:00:00\n", "a = 07:32:00Z\n", "a = 1979-05-27T07:32\n",
        "a = 1979-05-27T07:32:00+24:00\n", "a = 1979-05-27T07:32:00.Z\n",
        "a = 0_1\n", "a = 1__0\n", "a = _1\n", "a = 1_\n", "a = 01.5\n", "a = 1._5\n", "a = 1.e5\n", "a = .5\n",
        "a = +0x1\n", "a = 0x_1\n", "a = 0b2\n", "a = 9223372036854775808\n", "a = -9223372036854775809\n",
        "a = infinity\n", "a = True\n", "a = 1 2\n", "a = \"x\" # \u{7F}\n", "a = \"\u{1F}\"\n",
        "a\n", "= 1\n", "a b = 1\n", "a = \n", "[a\n", "[a]]\n", "[]\n", "[[a]\n", "a.b. = 1\n", "é = 1\n",
    ])
    func invalid(_ text: String) {
        #expect(!accepts(text), "\(text.debugDescription)")
    }

    @Test("Values: integers in every base, floats, escapes, multi-line trimming, dates")
    func values() throws {
        if case .integer(let i) = try value("a = 0o777\n") { #expect(i == 511) } else { Issue.record("0o777") }
        if case .integer(let i) = try value("a = 0b1010_1010\n") { #expect(i == 170) } else { Issue.record("0b") }
        if case .integer(let i) = try value("a = 1_000_000\n") { #expect(i == 1_000_000) } else { Issue.record("1_000_000") }
        if case .float(let d) = try value("a = -6.626e-34\n") { #expect(d == -6.626e-34) } else { Issue.record("float") }
        if case .float(let d) = try value("a = -inf\n") { #expect(d == -.infinity) } else { Issue.record("-inf") }
        if case .string(let s) = try value("a = \"\\u00E9\\U0001F6B2\\t\"\n") { #expect(s == "é🚲\t") } else { Issue.record("escapes") }
        if case .string(let s) = try value("a = \"\"\"\nline one\nline \\\n   two\"\"\"\n") { #expect(s == "line one\nline two") } else { Issue.record("multi-line") }
        if case .string(let s) = try value("a = '''\nC:\\path\\'''\n") { #expect(s == "C:\\path\\") } else { Issue.record("literal") }
        if case .dateTime(let t) = try value("a = 1979-05-27 00:32:00.999999-07:00\n") {
            #expect(t.text == "1979-05-27T00:32:00.999999-07:00" && t.kind == "datetime")
        } else { Issue.record("datetime") }
    }

    @Test("Redefinitions say which rule they break")
    func redefinitionMessages() {
        let cases = [
            ("[a]\nb.c = 1\n[a.b]\n", "3:1: [a.b] defines a table that dotted keys already defined (line 2); add to it with dotted keys there"),
            ("[a]\n[a]\n", "2:1: the table [a] is defined twice (first on line 1)"),
            ("a = {}\n[a.b]\n", "2:1: a is an inline table: it is complete as written and cannot be extended"),
            ("[[a]]\n[a]\n", "2:1: [a] is an array of tables (written [[a]]); it cannot also be a table"),
            ("[a.b]\nx = 1\n[a]\nb.y = 2\n", "4:1: a.b was defined by a [a.b] header (line 1); dotted keys cannot add to it from here"),
        ]
        for (text, expected) in cases {
            do {
                _ = try TOMLParser.parse(text)
                Issue.record("accepted \(text.debugDescription)")
            } catch {
                #expect(error.description == expected, "\(text.debugDescription)")
            }
        }
    }

    @Test("Positions: the key's line and column, counted in characters")
    func positions() throws {
        let doc = try TOMLParser.parse("# é\n[mqtt]\n  port = 1883\n\"é\" = 1\n")
        guard case .table(let root) = doc.value, case .table(let mqtt)? = root["mqtt"]?.value else { Issue.record("shape"); return }
        #expect(root["mqtt"]?.position == TOMLPosition(line: 2, column: 1))
        #expect(mqtt["port"]?.position == TOMLPosition(line: 3, column: 3))
        do {
            _ = try TOMLParser.parse("a = \"é\" x\n")
            Issue.record("accepted")
        } catch {
            #expect(error.position == TOMLPosition(line: 1, column: 9))
        }
    }
}
