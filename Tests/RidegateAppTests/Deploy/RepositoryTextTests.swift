import Foundation
import RidegateTestSupport
import Testing

/// The project speaks of itself: its docs say what is true now, name dates and commits for what they measured,
/// and number no rounds of work (such history is `git log`'s).
@Suite struct RepositoryTextTests {
    static let root = Fixtures.repositoryRoot
    static let folders = ["docs", "Sources", "Tests", "scripts", "Fuzz", "bench", "e2e", "deploy", "udev", "linker", ".ci"]

    static func textFiles() -> [String] {
        var files = [root + "/README.md"]
        for folder in folders {
            guard let walker = FileManager.default.enumerator(atPath: root + "/" + folder) else { continue }
            for case let path as String in walker where !path.contains("/.") {
                let full = root + "/" + folder + "/" + path
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
                      !["sqlite", "order", "nmea", "bin"].contains((path as NSString).pathExtension) else { continue }
                files.append(full)
            }
        }
        return files
    }

    @Test("No doc, comment, script or test numbers a round of work")
    func noRoundsOfWork() throws {
        // Built from parts, so this file does not match itself.
        let pattern = try NSRegularExpression(pattern: "\\b(" + "session" + "s?|round" + "s?) [0-9]+\\b", options: [.caseInsensitive])
        var found: [String] = []
        for file in Self.textFiles() {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(file.dropFirst(Self.root.count + 1)):\(number + 1): \(line.prefix(100))")
                }
            }
        }
        #expect(found.isEmpty, "\(found.count) lines:\n\(found.prefix(20).joined(separator: "\n"))")
    }

    /// A checkout with its history (not a copy of the tree, as scripts/mutants makes).
    static var hasHistory: Bool { FileManager.default.fileExists(atPath: root + "/.git") }

    @Test("docs/performance.md's figures name the date and the commit they were measured at, a commit the history has",
          .enabled(if: hasHistory, "not a git checkout: no history to look the commit up in"))
    func figuresNameTheirCommit() async throws {
        let text = try String(contentsOfFile: Self.root + "/docs/performance.md", encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Latest figures").dropFirst().first?.prefix(600))
        let date = section.range(of: #"20[0-9]{2}-[01][0-9]-[0-3][0-9]"#, options: .regularExpression)
        #expect(date != nil, "no date in: \(section.prefix(300))")
        let commits = section.components(separatedBy: " at ").dropFirst().compactMap { $0.split(whereSeparator: { !$0.isHexDigit }).first }
            .filter { $0.count >= 7 }
        try #require(!commits.isEmpty, "no commit in: \(section.prefix(300))")
        for commit in commits {
            let git = try ChildProcess("/usr/bin/git", ["-C", Self.root, "cat-file", "-e", String(commit) + "^{commit}"], captureOutput: true)
            #expect(await git.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0, "\(commit) is not a commit here")
        }
    }

    /// README's sizes and ratios are docs/performance.md's, where each names the commit it was measured at: one
    /// place to measure, one to update.
    @Test("Every size (MB) and ratio (×) README gives is one docs/performance.md gives")
    func readmeFiguresFromPerformance() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let performance = try String(contentsOfFile: Self.root + "/docs/performance.md", encoding: .utf8)
        let figure = try NSRegularExpression(pattern: #"(\d+(\.\d+)?) ?(MB|×)"#)
        let figures = figure.matches(in: readme, range: NSRange(readme.startIndex..., in: readme)).compactMap { match in
            Range(match.range, in: readme).map { String(readme[$0]) }
        }
        #expect(!figures.isEmpty)
        let missing = figures.filter { !performance.contains($0) && !performance.contains($0.replacingOccurrences(of: " ", with: "")) }
        #expect(missing.isEmpty, "README's \(missing) not in docs/performance.md")
    }
}
