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
    let bytes: [UInt8]
    var index = 0
    var line = 1
    var lineStart = 0
    let root: TOMLTableTree
    /// The table the next key/value pairs go into (the last header's), and its path, for messages.
    var current: TOMLTableTree
    var currentPath: [String] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        root = TOMLTableTree(origin: .header, at: TOMLPosition(line: 1, column: 1))
        current = root
    }

    // MARK: Positions and errors

    var position: TOMLPosition { position(of: index) }

    func position(of offset: Int) -> TOMLPosition {
        // Columns count characters: UTF-8 continuation bytes do not start one.
        var column = 1
        var i = lineStart
        while i < offset, i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return TOMLPosition(line: line, column: column)
    }

    func error(_ message: String) -> TOMLError { TOMLError(message, at: position) }

    func error(_ message: String, at offset: Int) -> TOMLError { TOMLError(message, at: position(of: offset)) }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func peek(_ ahead: Int) -> UInt8? { index + ahead < bytes.count ? bytes[index + ahead] : nil }

    /// What the byte at the cursor is, for messages: `'x'`, "a tab", "the end of the file".
    var found: String {
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

    func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(b >> 4)]) + String(digits[Int(b & 0xF)])
    }

    func utf8Length(_ lead: UInt8) -> Int {
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
    func validateEncoding() throws(TOMLError) {
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

    mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 { index += 1 }
    }

    /// After an expression: spaces, an optional comment, then a line end or the end of the file.
    mutating func endOfLine() throws(TOMLError) {
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

    mutating func newline() {
        index += 1
        line += 1
        lineStart = index
    }

    /// `#` to the end of the line; control characters other than tab are not allowed in it.
    mutating func comment() throws(TOMLError) {
        index += 1
        while let b = peek, b != UInt8(ascii: "\n") {
            if b == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { return }
            if b < 0x20 && b != 0x09 || b == 0x7F { throw error("\(found) in a comment") }
            index += 1
        }
    }

    /// Spaces, comments and line ends between array elements.
    mutating func skipBlank() throws(TOMLError) {
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

    mutating func header() throws(TOMLError) {
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
    func descend(_ table: TOMLTableTree, into name: String, path: ArraySlice<String>, at position: TOMLPosition) throws(TOMLError) -> TOMLTableTree {
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
