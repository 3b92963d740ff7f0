import Foundation
import RidegateLinux
import RidegateTestSupport
import Testing

@Suite struct DirectoryWatcherTests {
    private static func makeDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Starts a wait that only an entry in the directory (or the test's end) can finish. On the watcher's loop, as the
    /// daemon's reader waits: not behind whatever holds the suite's cooperative threads.
    private static func startLongWait(_ watcher: DirectoryWatcher, woke: Observed<Bool>, loop: EventLoop) -> Task<Void, Never> {
        Task(executorPreference: loop) {
            await watcher.waitForChange(timeout: 3600)
            woke.update { $0 = true }
        }
    }

    @Test("A wait that timed out leaves the watcher working: it sleeps until the next entry, then wakes")
    func wakesAfterATimeout() async throws {
        let loop = try EventLoop.started()
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let watcher = try DirectoryWatcher(directory: dir.path, loop: loop)
        await watcher.waitForChange(timeout: 0.05)

        let woke = Observed(false)
        let wait = Self.startLongWait(watcher, woke: woke, loop: loop)
        // Was a spin: the first timeout ended the inotify stream, so every later wait returned at once.
        let early = await woke.wait(timeout: 0.3) { $0 }
        #expect(!early, "returned without any change in the directory")

        #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent("ttyUSB0").path, contents: nil))
        #expect(await woke.wait(timeout: 30) { $0 })
        wait.cancel()
    }

    @Test("A change while nobody waits is remembered: the next wait returns at once")
    func remembersAChange() async throws {
        let loop = try EventLoop.started()
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let watcher = try DirectoryWatcher(directory: dir.path, loop: loop)
        #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent("ridegate-gps").path, contents: nil))

        let woke = Observed(false)
        let wait = Self.startLongWait(watcher, woke: woke, loop: loop)
        #expect(await woke.wait(timeout: 30) { $0 })
        wait.cancel()
    }

    @Test("Cancelling the waiting task ends the wait")
    func cancellationEndsTheWait() async throws {
        let loop = try EventLoop.started()
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let watcher = try DirectoryWatcher(directory: dir.path, loop: loop)
        let woke = Observed(false)
        let wait = Self.startLongWait(watcher, woke: woke, loop: loop)
        wait.cancel()
        #expect(await woke.wait(timeout: 30) { $0 })
    }

    @Test("The directory to watch is the deepest one of the device's path that exists")
    func nearestExistingDirectory() throws {
        let loop = try EventLoop.started()
        let dir = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(DirectoryWatcher.nearestExistingDirectory(of: dir.path + "/serial/by-id/usb-u-blox") == dir.path)
        try FileManager.default.createDirectory(atPath: dir.path + "/serial/by-id", withIntermediateDirectories: true)
        #expect(DirectoryWatcher.nearestExistingDirectory(of: dir.path + "/serial/by-id/usb-u-blox") == dir.path + "/serial/by-id")
        #expect(DirectoryWatcher.nearestExistingDirectory(of: "/ttyUSB0") == "/")
        #expect(throws: SystemCallError.self) { try DirectoryWatcher(directory: dir.path + "/missing", loop: loop) }
    }
}
