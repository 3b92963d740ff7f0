/// A parsed configuration document, independent of its syntax (TOML today): values with the line they
/// came from, so every error can point at it.
public struct ConfigNode: Sendable {
    public indirect enum Value: Sendable {
        case string(String)
        case integer(Int)
        case float(Double)
        case bool(Bool)
        case array([ConfigNode])
        case table([String: ConfigNode])
    }

    public var value: Value
    /// 1-based line in the file, when known.
    public var line: Int?

    public init(_ value: Value, line: Int? = nil) {
        self.value = value
        self.line = line
    }

    /// The value as written, for error messages.
    public var rendered: String {
        switch value {
        case .string(let s): "\"\(s)\""
        case .integer(let i): String(i)
        case .float(let d): String(d)
        case .bool(let b): b ? "true" : "false"
        case .array(let items): "[" + items.map(\.rendered).joined(separator: ", ") + "]"
        case .table: "{…}"
        }
    }

    var typeName: String {
        switch value {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a number"
        case .bool: "a boolean"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A configuration mistake: where, which key, what was written, and what is allowed.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// The column too, where it matters (a syntax error).
    public var column: Int?
    public var key: String
    public var problem: String

    public init(file: String, line: Int?, column: Int? = nil, key: String, problem: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.problem = problem
    }

    public var description: String {
        let place = line.map { line in column.map { "\(file):\(line):\($0)" } ?? "\(file):\(line)" } ?? file
        return key.isEmpty ? "\(place): \(problem)" : "\(place): \(key): \(problem)"
    }
}
