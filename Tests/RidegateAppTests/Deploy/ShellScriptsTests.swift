import Foundation
import RidegateTestSupport
import Testing

/// The repository's shell scripts, parsed by the shell that runs them: a syntax error in a script only the image
/// build sources (image-lib.sh) otherwise shows at the end of an hour of CI.
@Suite struct ShellScriptsTests {
    /// Folders that hold no scripts of the project's own.
    static let skipped: Set<String> = [".git", ".build", ".build-pi", ".swiftpm", "dist", "node_modules"]

    /// Every script with its shell: `.sh` files and files whose first line names sh or bash.
    static func scripts() throws -> [(path: String, shell: String)] {
        let root = RepositoryPaths.repository
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [(String, String)] = []
        while let relative = walker.nextObject() as? String {
            if skipped.contains((relative as NSString).lastPathComponent) { walker.skipDescendants(); continue }
            guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular,
                  let handle = FileHandle(forReadingAtPath: root + "/" + relative) else { continue }
            defer { try? handle.close() }
            let head = String(decoding: try handle.read(upToCount: 64) ?? Data(), as: UTF8.self)
            let firstLine = head.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
            if firstLine.hasPrefix("#!"), firstLine.hasSuffix("bash") || firstLine.contains("bash ") {
                found.append((relative, "/bin/bash"))
            } else if firstLine.hasPrefix("#!"), firstLine.hasSuffix("/sh") || firstLine.hasSuffix("/sh -e") {
                found.append((relative, "/bin/sh"))
            } else if relative.hasSuffix(".sh") {
                found.append((relative, "/bin/bash"))
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    @Test("Every shell script parses (sh -n or bash -n, by its first line; sourced .sh files with bash)")
    func everyScriptParses() async throws {
        let scripts = try Self.scripts()
        #expect(scripts.contains { $0.path == "scripts/image-lib.sh" } && scripts.contains { $0.path == "scripts/test" })
        for script in scripts {
            let run = try ChildProcess(script.shell, ["-n", RepositoryPaths.repository + "/" + script.path], captureOutput: true)
            let status = await run.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode)
            let said = (await run.waitForAllOutput(timeout: 5)).joined(separator: "\n")
            #expect(status == 0, "\(script.shell) -n \(script.path): \(said)")
        }
    }
}
