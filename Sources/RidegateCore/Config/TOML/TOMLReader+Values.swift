/// Key/value pairs, dotted keys, and the values: arrays, inline tables, strings, numbers, booleans, dates.
extension TOMLReader {
    /// `key = value` into `table`; dotted keys define the tables on their way.
    mutating func keyValue(into table: TOMLTableTree, inline: Bool, depth: Int) throws(TOMLError) {
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
    mutating func key() throws(TOMLError) -> [String] {
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

    static func isBareKey(_ b: UInt8) -> Bool {
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

    mutating func value(depth: Int) throws(TOMLError) -> Parsed {
        let start = position
        guard let b = peek else { throw error("expected a value after '=', found the end of the file") }
        switch b {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") { return .node(TOMLNode(.string(try multilineString(delimiter: b)), at: start)) }
            return .node(TOMLNode(.string(try basicString()), at: start))
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") { return .node(TOMLNode(.string(try multilineString(delimiter: b)), at: start)) }
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
