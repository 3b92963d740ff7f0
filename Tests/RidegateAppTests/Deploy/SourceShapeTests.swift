import Foundation
import RidegateTestSupport
import Testing

/// The code stays readable in one sitting: no Swift file over 400 lines, no function over 60 (a declaration
/// line ending in `{` to the `}` at its indentation).
@Suite struct SourceShapeTests {
    static let folders = ["Sources", "Tests", "Fuzz"]

    static func swiftFiles() -> [String] {
        folders.flatMap { folder -> [String] in
            let base = RepositoryTextTests.root + "/" + folder
            let paths = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
            return paths.filter { $0.hasSuffix(".swift") && !$0.contains("/.") }.map { base + "/" + $0 }
        }
    }

    static let declaration = try? NSRegularExpression(
        pattern: #"^(\s*)(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|static|mutating|nonisolated|override|final|convenience|required)\s+)*(func\s|init[?(<]|deinit\b)"#)

    /// (first line, length) of each function, initialiser and deinitialiser in `lines`.
    static func functions(_ lines: [Substring]) -> [(line: Int, length: Int)] {
        guard let declaration else { return [] }
        var found: [(Int, Int)] = []
        for (index, line) in lines.enumerated() where line.hasSuffix("{") {
            let text = String(line)
            guard let match = declaration.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let indent = Range(match.range(at: 1), in: text).map({ String(text[$0]) }) else { continue }
            if let end = lines[(index + 1)...].firstIndex(where: { $0.hasPrefix(indent + "}") }) {
                found.append((index + 1, end - index + 1))
            }
        }
        return found
    }

    @Test("No Swift file over 400 lines, no function over 60")
    func shape() throws {
        var long: [String] = []
        for file in Self.swiftFiles() {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let name = String(file.dropFirst(RepositoryTextTests.root.count + 1))
            if lines.count > 401 { long.append("\(name): \(lines.count - 1) lines") }
            for function in Self.functions(lines) where function.length > 60 {
                long.append("\(name):\(function.line): a function of \(function.length) lines")
            }
        }
        #expect(!Self.swiftFiles().isEmpty)
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
    }
}
