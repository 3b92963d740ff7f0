import Foundation
import Testing

/// The reference corpus: third-party data (gpsd's captures, toml-test's cases, real rides from head units, the
/// GPX/TCX schemas) that the project uses but does not carry. It is found at `$RIDEGATE_FIXTURES`, else at
/// `../shared/fixtures` beside the checkout. Where it is absent (a clone on its own), the tests that need it
/// are skipped with `Fixtures.absentReason`; with `RIDEGATE_REQUIRE_FIXTURES=1` (CI) they run and fail instead.
public enum Fixtures {
    public static var root: String {
        if let env = ProcessInfo.processInfo.environment["RIDEGATE_FIXTURES"], !env.isEmpty { return env }
        return repositoryRoot + "/../shared/fixtures"
    }

    /// The checkout this test binary was built from.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// A directory is there at `root`.
    public static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// CI's setting: a missing corpus is a failure, never a skip.
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["RIDEGATE_REQUIRE_FIXTURES"] == "1" }

    /// What a skipped test says (scripts/test counts the tests that say it).
    public static let absentReason = "reference corpus not found: set RIDEGATE_FIXTURES"

    /// One line per corpus a test enumerated, for scripts/test's closing summary: a corpus of the same layout
    /// with more cases shows more here without a test being edited.
    public static func report(_ corpus: String, cases: Int) {
        print("reference corpus: \(corpus): \(cases) cases")
    }

    public static func path(_ relative: String) -> String { root + "/" + relative }

    public static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    /// One JSON object per line; blank lines skipped.
    public static func jsonLines(_ relative: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path(relative), encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// The names (without `.ext`) of the files ending in `.ext` in a corpus folder, sorted; none when absent.
    public static func names(in relative: String, ext: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(relative))) ?? []
        return names.filter { $0.hasSuffix("." + ext) }.map { String($0.dropLast(ext.count + 1)) }.sorted()
    }

    /// The gpsd capture names (without extension), sorted.
    public static var gpsdCaptures: [String] { names(in: "nmea/gpsd", ext: "nmea") }
}

extension Trait where Self == ConditionTrait {
    /// For a suite or test that reads the reference corpus: skipped, with the reason, when it is absent, unless
    /// `RIDEGATE_REQUIRE_FIXTURES=1` (then it runs, and fails on the missing files).
    public static var referenceCorpus: Self {
        .enabled(if: Fixtures.isPresent || Fixtures.isRequired, Comment(rawValue: Fixtures.absentReason))
    }
}
