import Foundation
import RidegateApp
import RidegateCore
import RidegateTestSupport
import Testing

/// `run --last-good`: the SD-card image's configuration is a file on the FAT partition, edited from a laptop. A file
/// that passes is kept; one that fails leaves the last good copy running, and says so.
@Suite(.serialized) struct LastGoodConfigTests {
    func config(prefix: String, port: Int, dir: String, extra: String = "") -> String {
        """
        device_id = "lg"
        state_directory = "\(dir)/state"
        [mqtt]
        host = "127.0.0.1"
        port = \(port)
        prefix = "\(prefix)"
        homeassistant_discovery = false
        \(extra)
        [gps]
        enabled = false
        [heart_rate]
        enabled = false
        """
    }

    /// Runs the daemon until its health says it runs `expected` (a retained one from an earlier run may come
    /// first), then stops it; returns whether it said so, and the log.
    func run(_ arguments: [String], prefix: String, port: Int, expected: String) async throws -> (said: Bool, log: [String]) {
        let sub = try MQTTSubscriber(port: port, topic: "\(prefix)/lg/health")
        let daemon = try ChildProcess(RepositoryPaths.executable, arguments, captureOutput: true)
        let health = await sub.wait(timeout: TestTime.seconds(15)) { $0.contains { $0.json["config"] as? String == expected } }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        return (health.contains { $0.json["config"] as? String == expected }, await daemon.waitForAllOutput(timeout: 5))
    }

    @Test("A file that passes is kept; a refused one leaves the kept copy running, said in the log and on health; with no copy, exit 78")
    func refusedFileRunsTheLastGoodCopy() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-lastgood-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try await MosquittoBroker.start()
        let file = dir + "/ridegate.toml", copy = dir + "/last-good.toml"
        let good = config(prefix: "first", port: broker.port, dir: dir)
        try good.write(toFile: file, atomically: true, encoding: .utf8)

        let first = try await run(["run", "--config", file, "--last-good", copy], prefix: "first", port: broker.port, expected: "file")
        #expect(first.said, "\(first.log.suffix(8))")
        #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == good)

        // A typo made on a laptop: the file is refused, the copy runs (its prefix), and the mistake is named.
        try config(prefix: "second", port: broker.port, dir: dir, extra: "keepalive_s = \"thirty\"").write(toFile: file, atomically: true, encoding: .utf8)
        let second = try await run(["run", "--config", file, "--last-good", copy], prefix: "first", port: broker.port, expected: "last_good")
        #expect(second.said, "\(second.log.suffix(8))")
        let said = second.log.filter { $0.contains("the configuration file was refused") }
        #expect(said.count == 1 && said[0].contains("\(file):") && said[0].contains("keepalive_s"), "\(second.log.suffix(8))")
        #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == good) // the copy is still the good file

        try FileManager.default.removeItem(atPath: copy)
        let none = try ChildProcess(RepositoryPaths.executable, ["run", "--config", file, "--last-good", copy], captureOutput: true)
        #expect(await none.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 78)
    }

    /// What every other command reads by default on the image (`ridegate watch`, `doctor`, `rides`, `led test`): the
    /// file; when it is refused, the copy the daemon runs, with the file's mistake; nothing written either way.
    @Test("Read by a command: the file; when refused, the daemon's last good copy and why; with no copy, the file's mistake")
    func commandsReadTheCopyTheDaemonRuns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-reading-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/ridegate.toml", copy = dir + "/last-good.toml"
        try config(prefix: "file", port: 1883, dir: dir).write(toFile: file, atomically: true, encoding: .utf8)
        let read = try LastGoodConfig.reading(path: file, lastGood: copy)
        #expect(read.config.mqtt.prefix == "file" && read.rejected == nil)
        #expect(!FileManager.default.fileExists(atPath: copy), "only the daemon keeps the copy")

        try config(prefix: "copy", port: 1883, dir: dir).write(toFile: copy, atomically: true, encoding: .utf8)
        try config(prefix: "typo", port: 1883, dir: dir, extra: "keepalive_s = \"thirty\"").write(toFile: file, atomically: true, encoding: .utf8)
        let fallback = try LastGoodConfig.reading(path: file, lastGood: copy)
        #expect(fallback.config.mqtt.prefix == "copy")
        #expect(fallback.rejected?.contains("\(file):") == true && fallback.rejected?.contains("keepalive_s") == true, "\(fallback.rejected ?? "")")

        try FileManager.default.removeItem(atPath: copy)
        #expect(throws: ConfigError.self) { try LastGoodConfig.reading(path: file, lastGood: copy) }
    }
}
