/// Finds the line on which each key (as a dotted path) is defined in TOML text: table headers
/// (`[mqtt]`), keys (`port = 1883`) and dotted keys (`mqtt.port = 1883`). Only for error messages, so
/// it handles what people write in config files, not every corner of TOML.
struct TOMLKeyLines {
    private var lines: [String: Int] = [:]

    init(_ text: String) {
        var table: [String] = []
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            guard let first = line.first, first != "#" else { continue }
            if first == "[" {
                let inner = line.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.splitKey(inner)
                record(table, number)
            } else if let equals = line.firstIndex(of: "=") {
                record(table + Self.splitKey(line[..<equals]), number)
            }
        }
    }

    private mutating func record(_ path: [String], _ line: Int) {
        let key = path.joined(separator: ".")
        if lines[key] == nil { lines[key] = line }
    }

    private static func splitKey(_ text: Substring) -> [String] {
        text.split(separator: ".").map {
            String($0.trimmingCharacters(in: " \t\"'"))
        }
    }

    func line(of path: [String]) -> Int? {
        path.isEmpty ? nil : lines[path.joined(separator: ".")]
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return s
    }
}
