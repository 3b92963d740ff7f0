import Foundation
import RidegateTestSupport
import Testing

/// `ridegate watch` in a real terminal (tmux), following the demo through a real mosquitto: the view fills
/// in, redraws in place, follows the units of the config, and says when the gateway goes offline.
@Suite(.serialized) struct WatchCommandTests {
    /// Runs tmux on a server of this test run's own (-L), never the user's, through sh with every descriptor
    /// on /dev/null but for `capture-pane`'s output: the first `new-session` forks the server, which keeps the
    /// descriptors it was given for its whole life (a pipe there would never reach end of file).
    @discardableResult
    static func tmux(_ arguments: [String]) async throws -> String {
        let tmux = try Executables.find("tmux", hint: "apt-get install tmux").path
        let socket = "ridegate-test-\(getpid())"
        if arguments.first == "capture-pane" {
            let capture = try ChildProcess(tmux, ["-L", socket] + arguments, captureOutput: true)
            _ = await capture.waitForExit(timeout: 10)
            return await capture.waitForAllOutput(timeout: 5).joined(separator: "\n")
        }
        let quoted = ([tmux, "-L", socket] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let shell = try ChildProcess("/bin/sh", ["-c", quoted + " </dev/null >/dev/null 2>&1"])
        _ = await shell.waitForExit(timeout: 10)
        return ""
    }

    /// The pane's text, polled until `condition` holds or `timeout` passes (tmux has no event to wait on).
    static func pane(_ session: String, timeout: Double, until condition: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while Date() < deadline {
            text = try await tmux(["capture-pane", "-p", "-t", session])
            if condition(text) { return text }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        return text
    }

    @Test("In tmux: heart rate, speed, ride, sensors and broker fill in; one screen redrawn in place; imperial units; offline shown; Ctrl-C leaves")
    func watchInTmux() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-watch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let broker = try await MosquittoBroker.start()
        try "units = \"imperial\"\nclock = \"12h\"\n[mqtt]\nhost = \"127.0.0.1\"\nport = \(broker.port)\n".write(toFile: "\(dir)/c.toml", atomically: true, encoding: .utf8)
        let demo = try ChildProcess(RepositoryPaths.executable,
                                    ["demo", "--broker", "127.0.0.1:\(broker.port)", "--device-id", "w", "--speed", "10"], captureOutput: true)
        let session = "rgwatch\(getpid())"
        try await Self.tmux(["new-session", "-d", "-s", session, "-x", "110", "-y", "30",
                           "\(RepositoryPaths.executable) watch --config \(dir)/c.toml --device-id w; echo watch exited $?; sleep 60"])

        let filled = try await Self.pane(session, timeout: TestTime.seconds(30)) { text in
            text.contains("bpm") && text.contains("mph") && text.contains("mi ·") && text.contains("demo-strap connected") && text.contains("sunset")
        }
        #expect(filled.contains("Gateway    online"), "\(filled)")
        #expect(filled.range(of: #"Heart rate \d+ bpm · zone \d"#, options: .regularExpression) != nil, "\(filled)")
        #expect(filled.range(of: #"Speed      \d+\.\d mph"#, options: .regularExpression) != nil, "\(filled)")
        #expect(filled.contains("Broker     connected"), "\(filled)")
        #expect(filled.contains("GPS        fix"), "\(filled)")
        #expect(filled.range(of: #"Sun        sunset \d{1,2}:\d\d (AM|PM)"#, options: .regularExpression) != nil, "\(filled)")
        #expect(!filled.contains("km"), "imperial: no kilometres: \(filled)")
        // Redrawn in place: after more readings, still one title, and the distance has moved on.
        let distance = { (text: String) in text.components(separatedBy: "\n").first { $0.hasPrefix("Ride") } ?? "" }
        let before = distance(filled)
        let later = try await Self.pane(session, timeout: TestTime.seconds(20)) { distance($0) != before && !distance($0).isEmpty }
        #expect(distance(later) != before, "the view did not update: \(later)")
        #expect(later.components(separatedBy: "ridegate watch:").count == 2, "one screen, not a scroll: \(later)")

        demo.signal(SIGTERM)
        _ = await demo.waitForExit(timeout: TestTime.seconds(10))
        let offline = try await Self.pane(session, timeout: TestTime.seconds(15)) { $0.contains("Gateway    offline") }
        #expect(offline.contains("Gateway    offline"), "\(offline)")
        // "Ctrl-C to leave", as the title says (it once did nothing: the signal watch ended with its owner).
        _ = try await Self.tmux(["send-keys", "-t", session, "C-c"])
        let left = try await Self.pane(session, timeout: TestTime.seconds(20)) { $0.contains("watch exited") }
        #expect(left.contains("watch exited 0"), "\(left)")
        try await Self.tmux(["kill-server"])
    }

    /// `watch --once` against a broker that cannot be had: exit 69 with the reason the first attempt gave (a reason,
    /// not "no answer within 10 s", means it did not wait for the deadline).
    func onceCannotReach(_ broker: String) async throws -> String {
        let watch = try ChildProcess(RepositoryPaths.executable, ["watch", "--broker", broker, "--device-id", "x", "--once"], captureOutput: true)
        #expect(await watch.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 69)
        return (await watch.waitForAllOutput(timeout: 5)).first { $0.contains("cannot reach the broker") } ?? "(nothing said)"
    }

    @Test("--once: nothing listening, a name that does not resolve, a refused login: exit 69 at once, saying which")
    func onceCannotReach() async throws {
        let port = try FreePort.loopback()
        let refused = try await onceCannotReach("127.0.0.1:\(port)")
        #expect(refused.contains("127.0.0.1:\(port)") && refused.lowercased().contains("connection refused"), "\(refused)")
        let unresolved = try await onceCannotReach("nonexistent.invalid:1883")
        #expect(unresolved.contains("cannot resolve the broker's host name"), "\(unresolved)")
        let broker = try await MosquittoBroker.start(extraConfig: "allow_anonymous false\n")
        let login = try await onceCannotReach("127.0.0.1:\(broker.port)")
        #expect(login.contains("refused") && login.contains("authori"), "\(login)")
    }
}
