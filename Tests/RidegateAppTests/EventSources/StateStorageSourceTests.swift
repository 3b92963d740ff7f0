import Foundation
import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

@Suite struct StateStorageSourceTests {
    func storage(_ events: [SourceEvent]) -> [StateStorage] {
        events.compactMap { if case .stateStorage(let s, _) = $0 { s } else { nil } }
    }

    @Test("A state directory remounted read-only is reported, and writable again once it is; said in the log once each",
          .enabled(if: getuid() == 0, "needs root to mount a file system"))
    func remountIsSeen() async throws {
        let loop = try EventLoop.started()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ridegate-state-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(mount("tmpfs", path, "tmpfs", 0, "size=64k") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(path, Int32(MNT_DETACH)) }
        let capture = CapturingLogHandler()
        let log = EventLog([])
        let source = StateStorageSource(directory: path, clock: SystemClock(), logger: capture.logger(), loop: loop, interval: 0.05)
        let task = Task(executorPreference: loop) { await source.run(emit: log.append) }

        #expect(storage(await log.wait(timeout: 10) { !self.storage($0).isEmpty }).first == .writable)
        #expect(mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=64k") == 0)
        #expect(storage(await log.wait(timeout: 10) { self.storage($0).contains(.readOnly) }).contains(.readOnly))
        #expect(mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT), "size=64k") == 0)
        #expect(storage(await log.wait(timeout: 10) { self.storage($0).last == .writable && self.storage($0).contains(.readOnly) }).last == .writable)
        task.cancel()
        await task.value

        let lines = capture.lines
        #expect(lines.filter { $0.contains("read-only file system") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains("can be written again") }.count == 1, "\(lines)")
    }

    @Test("A state directory that cannot be looked at is said once, not at every look")
    func missingDirectoryIsSaidOnce() async throws {
        let loop = try EventLoop.started()
        let capture = CapturingLogHandler()
        let source = StateStorageSource(directory: "/nonexistent/ridegate-state", clock: SystemClock(), logger: capture.logger(), loop: loop, interval: 0.01)
        let log = EventLog([])
        let task = Task(executorPreference: loop) { await source.run(emit: log.append) }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        await task.value
        #expect(capture.lines.filter { $0.contains("cannot tell whether the state directory can be written") }.count == 1, "\(capture.lines)")
        #expect(storage(log.current).isEmpty)
    }
}
