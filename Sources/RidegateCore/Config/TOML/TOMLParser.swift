/// A TOML 1.0.0 parser (toml.io/en/v1.0.0): pure Swift over the document's bytes, no Foundation, so the
/// gateway needs no TOML library (the ones here bring Foundation or C++). Every error says what is wrong
/// and where (line:column). Checked against toml-test's TOML 1.0 cases (`TOMLComplianceTests`).
public enum TOMLParser {
    /// Arrays and inline tables nested deeper than this are refused (a hostile file must not exhaust the stack).
    public static let maximumNesting = 128

    public static func parse(_ text: String) throws(TOMLError) -> TOMLNode {
        var reader = TOMLReader(Array(text.utf8))
        return try reader.document()
    }

    public static func parse(bytes: [UInt8]) throws(TOMLError) -> TOMLNode {
        var reader = TOMLReader(bytes)
        return try reader.document()
    }
}

/// One pass over the bytes: expressions (key/value pairs and table headers), one per line.
struct TOMLReader {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private let root: TOMLTableTree
    /// The table the next key/value pairs go into (the last header's), and its path, for messages.
    private var current: TOMLTableTree
    private var currentPath: [String] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        root = TOMLTableTree(origin: .header, at: TOMLPosition(line: 1, column: 1))
        current = root
    }

    // MARK: Positions and errors

    private var position: TOMLPosition { position(of: index) }

    private func position(of offset: Int) -> TOMLPosition {
        // Columns count characters: UTF-8 continuation bytes do not start one.
        var column = 1
        var i = lineStart
        while i < offset, i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return TOMLPosition(line: line, column: column)
    }

    private func error(_ message: String) -> TOMLError { TOMLError(message, at: position) }

    private func error(_ message: String, at offset: Int) -> TOMLError { TOMLError(message, at: position(of: offset)) }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func peek(_ ahead: Int) -> UInt8? { index + ahead < bytes.count ? bytes[index + ahead] : nil }

    /// What the byte at the cursor is, for messages: `'x'`, "a tab", "the end of the file".
    private var found: String {
        guard let b = peek else { return "the end of the file" }
        switch b {
        case UInt8(ascii: "\n"): return "the end of the line"
        case UInt8(ascii: "\r"): return "a carriage return"
        case UInt8(ascii: "\t"): return "a tab"
        case 0x20: return "a space"
        case 0..<0x20, 0x7F: return "control character U+00" + hex(b)
        case 0x21..<0x7F: return "'" + String(UnicodeScalar(b)) + "'"
        default: return "'" + String(decoding: bytes[index..<min(bytes.count, index + utf8Length(b))], as: UTF8.self) + "'"
        }
    }

    private func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(b >> 4)]) + String(digits[Int(b & 0xF)])
    }

    private func utf8Length(_ lead: UInt8) -> Int {
        lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    // MARK: Document

    mutating func document() throws(TOMLError) -> TOMLNode {
        try validateEncoding()
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 } // a UTF-8 byte order mark
        lineStart = 0
        while index < bytes.count {
            skipWhitespace()
            guard let b = peek else { break }
            switch b {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            case UInt8(ascii: "["):
                try header()
            default:
                try keyValue(into: current, inline: false, depth: 0)
            }
            try endOfLine()
        }
        return root.node
    }

    /// Valid UTF-8 throughout (overlong forms and surrogates refused), before anything else.
    private func validateEncoding() throws(TOMLError) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        var lineNumber = 1
        var lineBegin = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" {
                    lineNumber += 1
                    lineBegin = offset + 1
                }
                offset += scalar.utf8.count
            case .emptyInput:
                return
            case .error:
                var column = 1
                for i in lineBegin..<min(offset, bytes.count) where bytes[i] & 0xC0 != 0x80 { column += 1 }
                throw TOMLError("the file is not valid UTF-8 here (TOML files are UTF-8 text)",
                                at: TOMLPosition(line: lineNumber, column: column))
            }
        }
    }

    private mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 { index += 1 }
    }

    /// After an expression: spaces, an optional comment, then a line end or the end of the file.
    private mutating func endOfLine() throws(TOMLError) {
        skipWhitespace()
        if peek == UInt8(ascii: "#") { try comment() }
        guard let b = peek else { return }
        if b == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { index += 1 }
        guard peek == UInt8(ascii: "\n") else {
            if b == UInt8(ascii: "\r") { throw error("a carriage return without a line feed: TOML lines end in LF or CRLF") }
            throw error("expected the end of the line after the value, found \(found) (one key = value per line; # starts a comment)")
        }
        newline()
    }

    private mutating func newline() {
        index += 1
        line += 1
        lineStart = index
    }

    /// `#` to the end of the line; control characters other than tab are not allowed in it.
    private mutating func comment() throws(TOMLError) {
        index += 1
        while let b = peek, b != UInt8(ascii: "\n") {
            if b == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { return }
            if b < 0x20 && b != 0x09 || b == 0x7F { throw error("\(found) in a comment") }
            index += 1
        }
    }

    /// Spaces, comments and line ends between array elements.
    private mutating func skipBlank() throws(TOMLError) {
        while let b = peek {
            switch b {
            case 0x20, 0x09: index += 1
            case UInt8(ascii: "\n"): newline()
            case UInt8(ascii: "\r"):
                guard peek(1) == UInt8(ascii: "\n") else { throw error("a carriage return without a line feed") }
                index += 1
                newline()
            case UInt8(ascii: "#"): try comment()
            default: return
            }
        }
    }

    // MARK: Tables

    private mutating func header() throws(TOMLError) {
        let position = self.position
        index += 1
        let isArray = peek == UInt8(ascii: "[")
        if isArray { index += 1 }
        skipWhitespace()
        let keys = try key()
        skipWhitespace()
        guard peek == UInt8(ascii: "]") else {
            throw error("expected ']' to close the table header, found \(found)")
        }
        index += 1
        if isArray {
            guard peek == UInt8(ascii: "]") else { throw error("expected ']]' to close the array-of-tables header, found \(found)") }
            index += 1
        }
        var table = root
        for (offset, name) in keys.dropLast().enumerated() {
            table = try descend(table, into: name, path: keys.prefix(offset + 1), at: position)
        }
        let last = keys[keys.count - 1]
        let dotted = keys.joined(separator: ".")
        currentPath = keys
        if isArray {
            switch table.entries[last] {
            case nil:
                let fresh = TOMLTableTree(origin: .header, at: position)
                table.entries[last] = .arrayOfTables([fresh], position)
                current = fresh
            case .arrayOfTables(var tables, let at):
                let fresh = TOMLTableTree(origin: .header, at: position)
                tables.append(fresh)
                table.entries[last] = .arrayOfTables(tables, at)
                current = fresh
            default:
                throw TOMLError("[[\(dotted)]] makes an array of tables, but \(dotted) is already defined as something else", at: position)
            }
        } else {
            switch table.entries[last] {
            case nil:
                let fresh = TOMLTableTree(origin: .header, at: position)
                table.entries[last] = .table(fresh)
                current = fresh
            case .table(let existing) where existing.origin == .implicit:
                existing.origin = .header
                current = existing
            case .table(let existing) where existing.origin == .dotted:
                throw TOMLError("[\(dotted)] defines a table that dotted keys already defined (line \(existing.position.line)); add to it with dotted keys there", at: position)
            case .table(let existing):
                throw TOMLError("the table [\(dotted)] is defined twice (first on line \(existing.position.line))", at: position)
            case .arrayOfTables:
                throw TOMLError("[\(dotted)] is an array of tables (written [[\(dotted)]]); it cannot also be a table", at: position)
            case .value(let node):
                throw TOMLError("[\(dotted)] is already a value (line \(node.position.line)); it cannot also be a table", at: position)
            }
        }
    }

    /// The table `name` inside `table` for a header's path: created implicitly when missing; the last table
    /// of an array of tables; never a value or an inline table.
    private func descend(
        _ table: TOMLTableTree, into name: String, path: ArraySlice<String>, at position: TOMLPosition
    ) throws(TOMLError) -> TOMLTableTree {
        switch table.entries[name] {
        case nil:
            let fresh = TOMLTableTree(origin: .implicit, at: position)
            table.entries[name] = .table(fresh)
            return fresh
        case .table(let existing):
            if existing.origin == .inline {
                throw TOMLError("\(path.joined(separator: ".")) is an inline table: it is complete as written and cannot be extended", at: position)
            }
            return existing
        case .arrayOfTables(let tables, _):
            guard let last = tables.last else { throw TOMLError("\(path.joined(separator: ".")) is an empty array of tables", at: position) }
            return last
        case .value(let node):
            throw TOMLError("\(path.joined(separator: ".")) is already a value (line \(node.position.line)), not a table", at: position)
        }
    }
}

/// Key/value pairs, dotted keys, and the values: arrays, inline tables, strings, numbers, booleans, dates.
extension TOMLReader {
    /// `key = value` into `table`; dotted keys define the tables on their way.
    private mutating func keyValue(into table: TOMLTableTree, inline: Bool, depth: Int) throws(TOMLError) {
        let keyPosition = position
        let keys = try key()
        skipWhitespace()
        guard peek == UInt8(ascii: "=") else {
            if peek == nil || peek == UInt8(ascii: "\n") || peek == UInt8(ascii: "\r") || peek == UInt8(ascii: "#") {
                throw error("expected '=' and a value after the key \(keys.joined(separator: "."))")
            }
            throw error("expected '=' after the key \(keys.joined(separator: ".")), found \(found)")
        }
        index += 1
        skipWhitespace()
        let value = try self.value(depth: depth)
        var target = table
        let base = inline ? [] : currentPath
        for (offset, name) in keys.dropLast().enumerated() {
            let path = (base + keys.prefix(offset + 1)).joined(separator: ".")
            switch target.entries[name] {
            case nil:
                let fresh = TOMLTableTree(origin: .dotted, at: keyPosition)
                target.entries[name] = .table(fresh)
                target = fresh
            case .table(let existing):
                switch existing.origin {
                case .inline:
                    throw TOMLError("\(path) is an inline table: it is complete as written and cannot be extended", at: keyPosition)
                case .header:
                    throw TOMLError("\(path) was defined by a [\(path)] header (line \(existing.position.line)); dotted keys cannot add to it from here", at: keyPosition)
                case .implicit:
                    existing.origin = .dotted
                case .dotted:
                    break
                }
                target = existing
            case .arrayOfTables:
                throw TOMLError("\(path) is an array of tables; dotted keys cannot add to it", at: keyPosition)
            case .value(let node):
                throw TOMLError("\(path) is already a value (line \(node.position.line)), not a table", at: keyPosition)
            }
        }
        let last = keys[keys.count - 1]
        if let existing = target.entries[last] {
            let first: Int
            switch existing {
            case .value(let node): first = node.position.line
            case .table(let t): first = t.position.line
            case .arrayOfTables(_, let at): first = at.line
            }
            throw TOMLError("the key \((base + keys).joined(separator: ".")) is defined twice (first on line \(first))", at: keyPosition)
        }
        switch value {
        case .inlineTable(let tree):
            target.entries[last] = .table(tree)
        case .node(var node):
            node.position = keyPosition
            target.entries[last] = .value(node)
        }
    }

    /// A key: bare, quoted or literal parts joined by dots (spaces allowed around the dots).
    private mutating func key() throws(TOMLError) -> [String] {
        var parts: [String] = []
        while true {
            skipWhitespace()
            guard let b = peek else { throw error("expected a key, found the end of the file") }
            if b == UInt8(ascii: "\"") {
                if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") { throw error("a key cannot be a multi-line string") }
                parts.append(try basicString())
            } else if b == UInt8(ascii: "'") {
                if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") { throw error("a key cannot be a multi-line string") }
                parts.append(try literalString())
            } else if Self.isBareKey(b) {
                let start = index
                while let c = peek, Self.isBareKey(c) { index += 1 }
                parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
            } else {
                throw error("expected a key (letters, digits, _ and -, or a quoted string), found \(found)")
            }
            skipWhitespace()
            guard peek == UInt8(ascii: ".") else { return parts }
            guard parts.count < TOMLParser.maximumNesting else {
                throw error("a key nested more than \(TOMLParser.maximumNesting) levels deep")
            }
            index += 1
        }
    }

    private static func isBareKey(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
    }

    enum Parsed {
        case node(TOMLNode)
        case inlineTable(TOMLTableTree)

        var asNode: TOMLNode {
            switch self {
            case .node(let node): node
            case .inlineTable(let tree): tree.node
            }
        }
    }

    private mutating func value(depth: Int) throws(TOMLError) -> Parsed {
        let start = position
        guard let b = peek else { throw error("expected a value after '=', found the end of the file") }
        switch b {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                return .node(TOMLNode(.string(try multilineString(delimiter: b)), at: start))
            }
            return .node(TOMLNode(.string(try basicString()), at: start))
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
                return .node(TOMLNode(.string(try multilineString(delimiter: b)), at: start))
            }
            return .node(TOMLNode(.string(try literalString()), at: start))
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            if match("true") { return .node(TOMLNode(.bool(true), at: start)) }
            if match("false") { return .node(TOMLNode(.bool(false), at: start)) }
            throw error("expected a value, found \(found) (strings are quoted: \"…\"; booleans are true or false)")
        case UInt8(ascii: "["):
            guard depth < TOMLParser.maximumNesting else { throw error("arrays and inline tables nested more than \(TOMLParser.maximumNesting) deep") }
            return .node(try array(depth: depth + 1))
        case UInt8(ascii: "{"):
            guard depth < TOMLParser.maximumNesting else { throw error("arrays and inline tables nested more than \(TOMLParser.maximumNesting) deep") }
            return .inlineTable(try inlineTable(depth: depth + 1))
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
            throw error("expected a value after '='")
        default:
            return .node(try scalar())
        }
    }

    mutating func match(_ word: String) -> Bool {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { return false }
        if let after = index + w.count < bytes.count ? bytes[index + w.count] : nil, Self.isBareKey(after) { return false }
        index += w.count
        return true
    }

    mutating func array(depth: Int) throws(TOMLError) -> TOMLNode {
        let start = position
        index += 1
        var items: [TOMLNode] = []
        while true {
            try skipBlank()
            if peek == UInt8(ascii: "]") {
                index += 1
                return TOMLNode(.array(items), at: start)
            }
            items.append(try value(depth: depth).asNode)
            try skipBlank()
            switch peek {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                return TOMLNode(.array(items), at: start)
            default:
                throw error("expected ',' or ']' in the array, found \(found)")
            }
        }
    }

    mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLTableTree {
        let tree = TOMLTableTree(origin: .header, at: position)
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            tree.origin = .inline
            return tree
        }
        while true {
            skipWhitespace()
            guard let b = peek, b != UInt8(ascii: "\n"), b != UInt8(ascii: "\r") else {
                throw error("an inline table { … } must be on one line (and has no trailing comma): found \(found)")
            }
            if b == UInt8(ascii: "}") { throw error("a trailing comma is not allowed in an inline table") }
            try keyValue(into: tree, inline: true, depth: depth)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                seal(tree)
                return tree
            default:
                throw error("expected ',' or '}' in the inline table, found \(found)")
            }
        }
    }

    /// An inline table and every table its dotted keys made are complete: nothing may add to them later.
    func seal(_ tree: TOMLTableTree) {
        tree.origin = .inline
        for case .table(let child) in tree.entries.values { seal(child) }
    }
}

/// TOML's four kinds of string: basic (with escapes), literal, and their multi-line forms.
extension TOMLReader {
    private mutating func basicString() throws(TOMLError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard let b = peek else { throw error("the string is not closed: expected '\"' before the end of the file") }
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("the string is not closed on its line: expected '\"' (use \"\"\"…\"\"\" for text over several lines)")
            case 0..<0x09, 0x0A..<0x20, 0x7F:
                throw error("\(found) in a string: write it as an escape (\\u00\(hex(b)))")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let start = index
        index += 1
        guard let e = peek else { throw error("the string ends in a lone backslash") }
        index += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = e == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let h = peek, let digit = TOMLNumber.digitValue(h) else {
                    throw error("\\\(e == UInt8(ascii: "u") ? "u" : "U") needs \(count) hex digits", at: start)
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("\\\(e == UInt8(ascii: "u") ? "u" : "U") escape is not a Unicode scalar value (a surrogate, or beyond U+10FFFF)", at: start)
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw error("unknown escape \\\(String(UnicodeScalar(e))) (TOML's are \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)", at: start)
        }
    }

    private mutating func literalString() throws(TOMLError) -> String {
        index += 1
        let start = index
        while true {
            guard let b = peek else { throw error("the string is not closed: expected \"'\" before the end of the file") }
            switch b {
            case UInt8(ascii: "'"):
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return text
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("the string is not closed on its line: expected \"'\"")
            case 0..<0x09, 0x0A..<0x20, 0x7F:
                throw error("\(found) in a literal string")
            default:
                index += 1
            }
        }
    }

    /// `"""…"""` and `'''…'''`: a line end right after the opening is dropped; up to two quotes may end the
    /// content right before the closing three. Only the basic form has escapes, and a backslash at a line's end
    /// that joins the next non-blank text.
    private mutating func multilineString(delimiter quote: UInt8) throws(TOMLError) -> String {
        let basic = quote == UInt8(ascii: "\"")
        index += 3
        try dropFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let b = peek else {
                throw error("the multi-line string is not closed: expected \(basic ? "'\"\"\"'" : "\"'''\"") before the end of the file")
            }
            switch b {
            case quote:
                if peek(1) == quote, peek(2) == quote {
                    var quotes = 3
                    while quotes < 5, peek(quotes) == quote { quotes += 1 }
                    out.append(contentsOf: Array(repeating: quote, count: quotes - 3))
                    index += quotes
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(b)
                index += 1
            case UInt8(ascii: "\\") where basic:
                // A line-ending backslash: whitespace up to the line end, then every blank and line end after.
                var j = index + 1
                while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
                if j < bytes.count,
                    bytes[j] == UInt8(ascii: "\n") || (bytes[j] == UInt8(ascii: "\r") && j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: "\n"))
                {
                    index = j
                    while let c = peek {
                        if c == 0x20 || c == 0x09 {
                            index += 1
                        } else if c == UInt8(ascii: "\n") {
                            newline()
                        } else if c == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
                            index += 1
                        } else {
                            break
                        }
                    }
                } else {
                    try escape(into: &out)
                }
            case UInt8(ascii: "\n"):
                out.append(b)
                newline()
            case UInt8(ascii: "\r"):
                guard peek(1) == UInt8(ascii: "\n") else { throw error("a carriage return without a line feed in a string") }
                out.append(b)
                index += 1
            case 0..<0x09, 0x0B..<0x20, 0x7F:
                throw error(basic ? "\(found) in a string: write it as an escape (\\u00\(hex(b)))" : "\(found) in a literal string")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    private mutating func dropFirstNewline() throws(TOMLError) {
        if peek == UInt8(ascii: "\n") {
            newline()
        } else if peek == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
            index += 1
            newline()
        }
    }
}

/// Scalars that are not strings: numbers, and offset, local date-times, dates and times (RFC 3339).
extension TOMLReader {
    /// Integers, floats, dates and times: the run of characters up to the next delimiter, then its form.
    mutating func scalar() throws(TOMLError) -> TOMLNode {
        let start = index
        let where_ = position
        if let dateTime = try dateTime() { return TOMLNode(.dateTime(dateTime), at: where_) }
        index = start
        while let b = peek, !Self.endsScalar(b) { index += 1 }
        let text = Array(bytes[start..<index])
        guard !text.isEmpty else { throw error("expected a value, found \(found)") }
        if let number = try TOMLNumber.parse(text, at: where_) { return TOMLNode(number, at: where_) }
        let shown = String(decoding: text, as: UTF8.self)
        throw TOMLError("\(shown) is not a TOML value (quote text: \"\(shown)\"; numbers, true/false, dates and times are bare)", at: where_)
    }

    private static func endsScalar(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}")
            || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "#")
    }

    /// `count` decimal digits at `offset` as a number, or nil.
    func digits(_ count: Int, at offset: Int) -> Int? {
        guard offset + count <= bytes.count else { return nil }
        var value = 0
        for i in offset..<offset + count {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else { return nil }
            value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
        }
        return value
    }

    func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// A date, time or date-time at the cursor, or nil (cursor unchanged) when the text is not shaped like one.
    mutating func dateTime() throws(TOMLError) -> TOMLDateTime? {
        let start = index
        var result = TOMLDateTime()
        var i = index
        if let year = digits(4, at: i), byte(at: i + 4) == UInt8(ascii: "-") {
            result.date = try date(year: year, at: i, start: start)
            i += 10
            // A time follows after T, t, or a space followed by a digit.
            if let sep = byte(at: i), sep == UInt8(ascii: "T") || sep == UInt8(ascii: "t")
                || (sep == 0x20 && byte(at: i + 1).map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } == true) {
                i += 1
            } else {
                index = i
                return result
            }
        } else if !(digits(2, at: i) != nil && byte(at: i + 2) == UInt8(ascii: ":")) {
            return nil
        }
        result.time = try time(at: &i, start: start)
        if result.date != nil { result.offsetMinutes = try offset(at: &i, start: start) }
        if let next = byte(at: i), !Self.endsScalar(next) {
            throw error("unexpected \(String(decoding: [next], as: UTF8.self)) after a date or time", at: i)
        }
        index = i
        return result
    }

    /// YYYY-MM-DD at `i` (its year read), checked against the calendar.
    func date(year: Int, at i: Int, start: Int) throws(TOMLError) -> (year: Int, month: Int, day: Int) {
        guard let month = digits(2, at: i + 5), byte(at: i + 7) == UInt8(ascii: "-"), let day = digits(2, at: i + 8),
              byte(at: i + 10).map({ !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) ?? true else {
            throw error("a malformed date: write YYYY-MM-DD, e.g. 1979-05-27", at: start)
        }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else {
            throw error("\(String(decoding: bytes[i..<i + 10], as: UTF8.self)) is not a date in the calendar", at: start)
        }
        return (year, month, day)
    }

    /// HH:MM:SS[.fraction] at `i`, which it moves past.
    func time(at i: inout Int, start: Int) throws(TOMLError) -> (hour: Int, minute: Int, second: Int, fraction: String) {
        guard let hour = digits(2, at: i), byte(at: i + 2) == UInt8(ascii: ":"), let minute = digits(2, at: i + 3),
              byte(at: i + 5) == UInt8(ascii: ":"), let second = digits(2, at: i + 6) else {
            throw error("a malformed time: write HH:MM:SS with seconds, e.g. 07:32:00", at: start)
        }
        guard hour < 24, minute < 60, second <= 60 else {
            throw error("\(String(decoding: bytes[i..<i + 8], as: UTF8.self)) is not a time of day", at: start)
        }
        i += 8
        var fraction = ""
        if byte(at: i) == UInt8(ascii: ".") {
            i += 1
            let begin = i
            while let d = byte(at: i), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) { i += 1 }
            guard i > begin else { throw error("a decimal point in a time needs digits after it", at: start) }
            fraction = String(decoding: bytes[begin..<i], as: UTF8.self)
        }
        return (hour, minute, second, fraction)
    }

    /// A date-time's UTC offset at `i` (Z, +HH:MM, -HH:MM) in minutes, which it moves past; nil for a local one.
    func offset(at i: inout Int, start: Int) throws(TOMLError) -> Int? {
        if let z = byte(at: i), z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") {
            i += 1
            return 0
        }
        guard let sign = byte(at: i), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        guard let oh = digits(2, at: i + 1), byte(at: i + 3) == UInt8(ascii: ":"), let om = digits(2, at: i + 4), oh < 24, om < 60 else {
            throw error("a malformed UTC offset: write Z, +HH:MM or -HH:MM", at: start)
        }
        i += 6
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (oh * 60 + om)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// The mutable tree a TOML document is built into while it is parsed: tables remember how they came to be,
/// because TOML's rules on defining a table twice depend on it. Turned into `TOMLNode`s at the end.
final class TOMLTableTree {
    enum Origin {
        /// Created as the parent of a header (`[a.b]` creates `a`): may still be defined once.
        case implicit
        /// Defined by a `[header]` (or the root).
        case header
        /// Defined by dotted keys (`a.b = 1` defines `a`): no header may define it again.
        case dotted
        /// An inline table `{ … }`: complete as written, never extended.
        case inline
    }

    enum Entry {
        case value(TOMLNode)
        case table(TOMLTableTree)
        /// `[[name]]`: the tables in order.
        case arrayOfTables([TOMLTableTree], TOMLPosition)
    }

    fileprivate(set) var origin: Origin
    let position: TOMLPosition
    fileprivate(set) var entries: [String: Entry] = [:]

    init(origin: Origin, at position: TOMLPosition) {
        self.origin = origin
        self.position = position
    }

    var node: TOMLNode {
        var table: [String: TOMLNode] = [:]
        for (key, entry) in entries {
            switch entry {
            case .value(let node): table[key] = node
            case .table(let child): table[key] = child.node
            case .arrayOfTables(let tables, let position): table[key] = TOMLNode(.array(tables.map(\.node)), at: position)
            }
        }
        return TOMLNode(.table(table), at: position)
    }
}
