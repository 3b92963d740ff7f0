import Foundation
import RidegateTestSupport
import Testing

/// What `--help` tells a newcomer matches what the gateway does: every sensor kind it reads, the simulated
/// sensors the demo rides with.
@Suite struct HelpTextTests {
    /// The command's own overview (before USAGE: the subcommands' abstracts below it do not count).
    func help(_ arguments: [String]) async throws -> String {
        let process = try ChildProcess(RepositoryPaths.executable, arguments + ["--help"], captureOutput: true)
        #expect(await process.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let lines = (await process.waitForAllOutput(timeout: 5)).prefix { !$0.hasPrefix("USAGE:") }
        // Help wraps at the terminal's width: compare the words, not the lines.
        return lines.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test("ridegate --help names straps, power meters and speed/cadence sensors, zones of both, and the ride files")
    func rootHelp() async throws {
        let text = try await help([])
        for words in ["heart-rate straps", "power meters", "speed/cadence sensors", "power zones", "GPX, TCX and FIT"] {
            #expect(text.contains(words), "ridegate --help lacks '\(words)': \(text.prefix(400))")
        }
    }

    @Test("demo --help names the simulated strap and power meter")
    func demoHelp() async throws {
        let text = try await help(["demo"])
        #expect(text.contains("heart-rate strap and power meter"), "\(text.prefix(600))")
    }
}
