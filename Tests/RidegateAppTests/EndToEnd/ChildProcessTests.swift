import Foundation
import RidegateTestSupport
import Testing

/// The tests' own child processes inherit nothing but their standard descriptors: a broker or a daemon that
/// kept another child's pipe open would leave whoever reads that pipe waiting for ever (a test runner whose
/// threads all wait so has stalled).
@Suite struct ChildProcessTests {
    @Test("A child sees descriptors 0, 1 and 2 only, whatever the runner has open")
    func onlyStandardDescriptors() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0) // open in the runner, not close-on-exec
        defer { fds.forEach { close($0) } }
        let child = try ChildProcess("/bin/sh", ["-c", "ls /proc/$$/fd"], captureOutput: true)
        #expect(await child.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let open = Set((await child.waitForAllOutput(timeout: 5)).flatMap { $0.split(separator: " ").map(String.init) })
        #expect(open == ["0", "1", "2"], "\(open.sorted())")
    }
}
