import Foundation
import RidegateTestSupport
import Testing

/// The built daemon runs every task of Swift concurrency on its one thread, the event loop: the executor
/// hooks (`swift_jobs.c`) took effect. On a toolchain whose runtime ignored them, the gateway's tasks would
/// run on Dispatch's pool and its threads would be here to count.
@Suite struct EventLoopProcessTests {
    func threads(of pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    @Test("ridegate run, connected and idle: one thread (the loop); Dispatch's pool never started")
    func oneThread() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-thread-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let broker = try await MosquittoBroker.start()
        try TestConfigs.quiet(deviceID: "t", dir: dir, brokerPort: broker.port, to: dir + "/c.toml")
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/t/status")
        let daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", dir + "/c.toml"], captureOutput: true)
        defer { daemon.signal(SIGTERM) }
        let online = await sub.wait(timeout: TestTime.seconds(20)) { $0.contains { $0.payload == "online" } }
        try #require(online.contains { $0.payload == "online" }, "\(daemon.lines.suffix(5))")
        // Threads that come and go (the connect's, the ride log's writer) may be seen in one look: the fewest
        // of several looks is what stays.
        var counts: [Int] = []
        for _ in 0..<10 {
            counts.append(threads(of: daemon.pid))
            try await TestTime.pause(0.3)
        }
        #expect(counts.min() == 1, "threads seen: \(counts)")
    }

    @Test("A loop that cannot start (no descriptor left for its eventfd) exits 71, EX_OSERR, saying why and what to do")
    func cannotStart() async throws {
        // Four descriptors: the three standard ones and the one the dynamic loader needs; epoll takes the fourth.
        let limited = try ChildProcess(try Executables.find("prlimit", hint: "apt-get install util-linux").path,
                                       ["--nofile=4", RepositoryPaths.executable, "version"], captureOutput: true)
        let status = await limited.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode)
        let said = await limited.waitForAllOutput(timeout: 5)
        #expect(status == 71, "\(said)")
        #expect(said.contains { $0.contains("cannot start the event loop") && $0.contains("ulimit -n") }, "\(said)")
    }

    /// `Tests/Interposers/epoll_fails_when.c` built as a preloadable library: epoll_wait fails once a file exists.
    func epollFailure(in dir: String) async throws -> String {
        let library = dir + "/epoll_fails_when.so"
        let compiler = try ChildProcess(try Executables.find("cc", hint: "apt-get install gcc").path,
                                        ["-shared", "-fPIC", "-o", library, RepositoryTextTests.root + "/Tests/Interposers/epoll_fails_when.c", "-ldl"],
                                        captureOutput: true)
        #expect(await compiler.waitForExit(timeout: TestTime.seconds(60)).flatMap(ChildProcess.exitCode) == 0)
        return library
    }

    @Test("A loop whose epoll fails in the middle of a run (connected, publishing) exits 71, saying so: systemd restarts it")
    func epollFailsMidRun() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-epoll-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let library = try await epollFailure(in: dir)
        let broker = try await MosquittoBroker.start()
        try TestConfigs.quiet(deviceID: "t", dir: dir, brokerPort: broker.port, to: dir + "/c.toml")
        let sub = try MQTTSubscriber(port: broker.port, topic: "ridegate/t/status")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = library
        environment["RIDEGATE_TEST_EPOLL_FAILS_WHEN"] = dir + "/fail"
        let daemon = try ChildProcess(RepositoryPaths.executable, ["run", "--config", dir + "/c.toml"], captureOutput: true,
                                      environment: environment)
        defer { daemon.signal(SIGKILL) }
        let online = await sub.wait(timeout: TestTime.seconds(20)) { $0.contains { $0.payload == "online" } }
        try #require(online.contains { $0.payload == "online" }, "\(daemon.lines.suffix(5))")
        #expect(FileManager.default.createFile(atPath: dir + "/fail", contents: Data()))
        daemon.signal(SIGHUP) // ignored by the daemon, but it wakes the loop, whose next wait fails
        let status = await daemon.waitForExit(timeout: TestTime.seconds(20)).flatMap(ChildProcess.exitCode)
        let said = await daemon.waitForAllOutput(timeout: 5)
        #expect(status == 71, "\(said.suffix(5))")
        #expect(said.contains { $0.contains("the event loop's epoll failed") && $0.contains("Bad file descriptor") }, "\(said.suffix(5))")
    }
}
