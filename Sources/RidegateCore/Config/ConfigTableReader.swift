/// Reads one table of a config document, key by key, with defaults and ranges, and finally refuses every
/// key it was not asked for: a typo must never silently do nothing.
struct ConfigTableReader {
    let file: String
    let path: String
    let table: [String: ConfigNode]
    let tableLine: Int?
    private(set) var consumed: Set<String> = []

    init(file: String, path: String, node: ConfigNode?) throws(ConfigError) {
        self.file = file
        self.path = path
        tableLine = node?.line
        guard let node else {
            table = [:]
            return
        }
        guard case .table(let entries) = node.value else {
            throw ConfigError(file: file, line: node.line, key: path, problem: "must be a table ([\(path)]), not \(node.typeName)")
        }
        table = entries
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func error(_ key: String, _ node: ConfigNode?, _ problem: String) -> ConfigError {
        ConfigError(file: file, line: node?.line ?? tableLine, key: keyPath(key), problem: problem)
    }

    mutating func node(_ key: String) -> ConfigNode? {
        consumed.insert(key)
        return table[key]
    }

    mutating func subtable(_ key: String) throws(ConfigError) -> ConfigTableReader {
        try ConfigTableReader(file: file, path: keyPath(key), node: node(key))
    }

    /// No string here needs more (a path is at most 4095 bytes): a longer one is a mistake, refused at
    /// `--check-config` rather than by whatever meets it later.
    static let longestString = 4095

    mutating func string(_ key: String, default value: String, maxBytes: Int = longestString) throws(ConfigError) -> String {
        try optionalString(key, maxBytes: maxBytes) ?? value
    }

    mutating func optionalString(_ key: String, maxBytes: Int = longestString) throws(ConfigError) -> String? {
        guard let n = node(key) else { return nil }
        guard case .string(let s) = n.value else { throw error(key, n, "\(n.rendered) is \(n.typeName); expected a string in quotes") }
        guard s.utf8.count <= maxBytes else { throw error(key, n, "is \(s.utf8.count) bytes long; at most \(maxBytes)") }
        return s
    }

    mutating func choice(_ key: String, default value: String, allowed: [String]) throws(ConfigError) -> String {
        let text = try string(key, default: value)
        guard allowed.contains(text) else {
            throw error(key, table[key], "\"\(text)\" is not allowed; use one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return text
    }

    mutating func bool(_ key: String, default value: Bool) throws(ConfigError) -> Bool {
        guard let n = node(key) else { return value }
        guard case .bool(let b) = n.value else { throw error(key, n, "\(n.rendered) is \(n.typeName); expected true or false") }
        return b
    }

    mutating func integer(_ key: String, default value: Int, range: ClosedRange<Int>) throws(ConfigError) -> Int {
        try optionalInteger(key, range: range) ?? value
    }

    mutating func optionalInteger(_ key: String, range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let n = node(key) else { return nil }
        guard case .integer(let i) = n.value else {
            throw error(key, n, "\(n.rendered) is \(n.typeName); expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        guard range.contains(i) else {
            throw error(key, n, "\(i) is out of range; allowed \(range.lowerBound) to \(range.upperBound)")
        }
        return i
    }

    mutating func number(_ key: String, default value: Double, range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard let n = node(key) else { return value }
        let d: Double
        switch n.value {
        case .integer(let i): d = Double(i)
        case .float(let f): d = f
        default: throw error(key, n, "\(n.rendered) is \(n.typeName); expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        guard range.contains(d) else {
            throw error(key, n, "\(n.rendered) is out of range; allowed \(range.lowerBound) to \(range.upperBound)")
        }
        return d
    }

    mutating func numbers(_ key: String, default value: [Double]) throws(ConfigError) -> [Double] {
        guard let n = node(key) else { return value }
        guard case .array(let items) = n.value else { throw error(key, n, "\(n.rendered) is \(n.typeName); expected an array of numbers") }
        var result: [Double] = []
        for item in items {
            switch item.value {
            case .integer(let i): result.append(Double(i))
            case .float(let f): result.append(f)
            default: throw error(key, item.line == nil ? n : item, "\(item.rendered) in the array is \(item.typeName); expected numbers")
            }
        }
        return result
    }

    mutating func strings(_ key: String, default value: [String]) throws(ConfigError) -> [String] {
        guard let n = node(key) else { return value }
        guard case .array(let items) = n.value else { throw error(key, n, "\(n.rendered) is \(n.typeName); expected an array of strings") }
        var result: [String] = []
        for item in items {
            guard case .string(let s) = item.value else { throw error(key, n, "\(item.rendered) in the array is \(item.typeName); expected strings") }
            guard s.utf8.count <= Self.longestString else { throw error(key, n, "has a string \(s.utf8.count) bytes long; at most \(Self.longestString)") }
            result.append(s)
        }
        return result
    }

    /// Refuses keys nobody asked for, suggesting the closest known one.
    func finish() throws(ConfigError) {
        for key in table.keys.sorted() where !consumed.contains(key) {
            var problem = "unknown key"
            if let suggestion = consumed.min(by: { editDistance($0, key) < editDistance($1, key) }),
               editDistance(suggestion, key) <= max(2, key.count / 3) {
                problem += "; did you mean '\(suggestion)'?"
            } else if !consumed.isEmpty {
                problem += "; known keys here: \(consumed.sorted().joined(separator: ", "))"
            }
            throw error(key, table[key], problem)
        }
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = Array(repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
