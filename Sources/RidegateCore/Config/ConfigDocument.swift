/// A config file's text to a validated `GatewayConfig`: TOML parsed by ridegate's own parser, its values
/// turned into the syntax-free `ConfigNode` tree with the line each key was written on, then validated.
public enum ConfigDocument {
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> GatewayConfig {
        let text = try ConfigText.check(bytes, file: file)
        return try parse(text, file: file)
    }

    public static func parse(_ text: String, file: String) throws(ConfigError) -> GatewayConfig {
        let document: TOMLNode
        do {
            document = try TOMLParser.parse(text)
        } catch {
            throw ConfigError(file: file, line: error.position.line, column: error.position.column, key: "",
                              problem: "TOML syntax error: \(error.message)")
        }
        return try GatewayConfig(document: try convert(document, path: [], file: file), file: file)
    }

    static func convert(_ node: TOMLNode, path: [String], file: String) throws(ConfigError) -> ConfigNode {
        let line = node.position.line
        switch node.value {
        case .table(let table):
            var entries: [String: ConfigNode] = [:]
            for (key, value) in table { entries[key] = try convert(value, path: path + [key], file: file) }
            return ConfigNode(.table(entries), line: path.isEmpty ? nil : line)
        case .array(let items):
            var converted: [ConfigNode] = []
            for item in items { converted.append(try convert(item, path: path, file: file)) }
            return ConfigNode(.array(converted), line: line)
        case .string(let s):
            return ConfigNode(.string(s), line: line)
        case .integer(let i):
            guard let value = Int(exactly: i) else {
                throw ConfigError(file: file, line: line, key: path.joined(separator: "."), problem: "\(i) is out of range")
            }
            return ConfigNode(.integer(value), line: line)
        case .float(let d):
            return ConfigNode(.float(d), line: line)
        case .bool(let b):
            return ConfigNode(.bool(b), line: line)
        case .dateTime(let t):
            throw ConfigError(file: file, line: line, column: node.position.column, key: path.joined(separator: "."),
                              problem: "\(t.text) is a date or time; no ridegate setting takes one (quote it if it is text: \"\(t.text)\")")
        }
    }
}
