import RidegateCore
import RidegateLinux
import TOMLKit

/// Reads a TOML file into the core's syntax-free `ConfigNode` tree, with each key's line number, then
/// validates it into a `GatewayConfig`. TOMLKit (toml++) parses; it does not report where a value
/// came from, so `TOMLKeyLines` finds each key's line in the text.
public enum TOMLConfigLoader {
    public static func load(path: String) throws(ConfigError) -> GatewayConfig {
        let bytes: [UInt8]
        do {
            bytes = try TextFile.readBytes(path, limit: ConfigText.maximumBytes)
        } catch {
            throw ConfigError(file: path, line: nil, key: "", problem: "cannot read the config file: \(error.errno). Pass another with --config PATH, or copy deploy/ridegate.toml.example there")
        }
        return try parse(try ConfigText.check(bytes, file: path), file: path)
    }

    public static func parse(_ text: String, file: String) throws(ConfigError) -> GatewayConfig {
        _ = try ConfigText.check(Array(text.utf8), file: file)
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(file: file, line: error.source.begin.line, key: "",
                              problem: "TOML syntax error at column \(error.source.begin.column): \(error.description)")
        } catch {
            throw ConfigError(file: file, line: nil, key: "", problem: "TOML syntax error: \(error)")
        }
        let lines = TOMLKeyLines(text)
        let root = try convert(table, path: [], lines: lines, file: file)
        return try GatewayConfig(document: root, file: file)
    }

    private static func convert(_ table: TOMLTable, path: [String], lines: TOMLKeyLines, file: String) throws(ConfigError) -> ConfigNode {
        var entries: [String: ConfigNode] = [:]
        for key in table.keys {
            guard let value = table[key] else { continue }
            entries[key] = try convert(value, path: path + [key], lines: lines, file: file)
        }
        return ConfigNode(.table(entries), line: lines.line(of: path))
    }

    private static func convert(_ value: TOMLValueConvertible, path: [String], lines: TOMLKeyLines, file: String) throws(ConfigError) -> ConfigNode {
        let line = lines.line(of: path)
        switch value.type {
        case .table:
            guard let table = value.table else { break }
            return try convert(table, path: path, lines: lines, file: file)
        case .array:
            guard let array = value.array else { break }
            var items: [ConfigNode] = []
            for element in array {
                var item = try convert(element, path: path, lines: lines, file: file)
                item.line = line
                items.append(item)
            }
            return ConfigNode(.array(items), line: line)
        case .string:
            if let s = value.string { return ConfigNode(.string(s), line: line) }
        case .int:
            if let i = value.int { return ConfigNode(.integer(i), line: line) }
        case .double:
            if let d = value.double { return ConfigNode(.float(d), line: line) }
        case .bool:
            if let b = value.bool { return ConfigNode(.bool(b), line: line) }
        case .date, .time, .dateTime:
            break
        }
        throw ConfigError(file: file, line: line, key: path.joined(separator: "."),
                          problem: "\(value.type) values are not used by ridegate; write a string, number, boolean, array or table")
    }
}
