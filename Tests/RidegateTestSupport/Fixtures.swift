import Foundation

/// The shared reference fixtures (`../shared/fixtures` beside the checkout), or `$RIDEGATE_FIXTURES`.
public enum Fixtures {
    public static var root: String {
        if let env = ProcessInfo.processInfo.environment["RIDEGATE_FIXTURES"] { return env }
        return repositoryRoot + "/../shared/fixtures"
    }

    /// The checkout this test binary was built from.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    public static func path(_ relative: String) -> String { root + "/" + relative }

    public static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    /// One JSON object per line.
    public static func jsonLines(_ relative: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path(relative), encoding: .utf8)
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// The gpsd capture names (without extension), sorted.
    public static var gpsdCaptures: [String] {
        let dir = path("nmea/gpsd")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".nmea") }.map { String($0.dropLast(5)) }.sorted()
    }
}
