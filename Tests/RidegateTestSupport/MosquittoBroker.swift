import Foundation

/// A real mosquitto broker on a free loopback port, private to one test, stopped on `stop()` or deinit.
public final class MosquittoBroker: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    private var process: ChildProcess?
    private let log: URL

    /// - Parameter extraConfig: mosquitto.conf lines appended after the listener (auth, TLS, persistence).
    /// - Parameter directory: reuse another broker's directory (with `persistence`, its stored sessions).
    public init(extraConfig: String = "", port: Int? = nil, persistence: Bool = false, directory: URL? = nil) throws {
        self.directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("ridegate-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        log = self.directory.appendingPathComponent("mosquitto.log")
        let executable = try Executables.find("mosquitto", hint: "apt-get install mosquitto")
        // A free port can be taken by another test between the probe and the bind: try a few.
        var attempt = 0
        while true {
            attempt += 1
            let candidate = try port ?? FreePort.loopback()
            var config = "listener \(candidate) 127.0.0.1\nallow_anonymous true\nlog_dest file \(log.path)\nlog_type all\n"
            // As root mosquitto would switch to its own user, which cannot read the test's files.
            if getuid() == 0 { config += "user root\n" }
            if persistence { config += "persistence true\npersistence_location \(self.directory.path)/\n" }
            config += extraConfig
            let configFile = self.directory.appendingPathComponent("mosquitto.conf")
            try config.write(to: configFile, atomically: true, encoding: .utf8)
            let child = try ChildProcess(executable.path, ["-c", configFile.path], captureOutput: true)
            if Self.waitForListener(child, port: candidate) {
                self.port = candidate
                process = child
                return
            }
            child.terminate()
            if port != nil || attempt >= 3 {
                let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw BrokerError(message: "mosquitto did not start on port \(candidate): \(child.lines.joined(separator: "\n")) \(logged)")
            }
        }
    }

    /// Starts one on a thread of its own: waiting for mosquitto to listen (a second on a busy machine) must not
    /// hold one of the few threads the rest of the suite's async tests (and the sources they test) run on.
    public static func start(
        extraConfig: String = "", port: Int? = nil, persistence: Bool = false, directory: URL? = nil
    ) async throws -> MosquittoBroker {
        try await OffThePool.run { try MosquittoBroker(extraConfig: extraConfig, port: port, persistence: persistence, directory: directory) }
    }

    // Stopped on a thread of its own: waiting for mosquitto to exit must not hold one of the few threads the
    // rest of the suite's async tests run on.
    deinit { process?.terminateInBackground() }

    /// Waits until the broker accepts connections (it logs the listener before it is usable, so connect).
    private static func waitForListener(_ child: ChildProcess, port: Int) -> Bool {
        let deadline = Date().addingTimeInterval(TestTime.seconds(10))
        while Date() < deadline {
            if FreePort.canConnect(port: port) { return true }
            if child.hasExited { return false }
            usleep(20_000)
        }
        return false
    }

    /// Stops it and waits until it has exited (its port free for a broker started again on it).
    public func stop() async {
        let stopping = process
        process = nil
        await stopping?.terminate()
    }

    public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// How many lines of the broker's log (`log_type all`: one per packet) contain `text`.
    public func logged(_ text: String) -> Int {
        logText.split(separator: "\n").filter { $0.contains(text) }.count
    }

    /// Waits until the broker has logged `text` at least `count` times (its own word that a packet went out,
    /// such as "Sending PUBACK to"), up to `timeout`; returns whether it did.
    @discardableResult
    public func waitUntilLogged(_ text: String, count: Int, timeout: Double = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(TestTime.seconds(timeout))
        while logged(text) < count {
            guard Date() < deadline else { return false }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return true
    }

    public struct BrokerError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}

public enum Executables {
    public static func find(_ name: String, hint: String) throws -> URL {
        for dir in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"] {
            let url = URL(fileURLWithPath: dir).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw MosquittoBroker.BrokerError(message: "\(name) not found; \(hint) (./scripts/test installs it)")
    }
}

public enum FreePort {
    /// A loopback port free now, picked at random below the kernel's ephemeral range (ip_local_port_range). Tests
    /// often name a port before anything listens on it (in a config, or to restart a server on the same port),
    /// and a port in the ephemeral range can meanwhile become the source port of any outgoing connection on the
    /// machine ("Address already in use" at the restart, under the suite's load); below it only another bind
    /// competes. The kernel's own pick if none is found.
    public static func loopback() throws -> Int {
        let low = ephemeralRangeStart()
        for _ in 0..<100 {
            let candidate = Int.random(in: 10_000..<max(10_001, low))
            if (try? bind(port: candidate)) != nil { return candidate }
        }
        return try bind(port: 0)
    }

    /// Binds `port` (0: any) on loopback, closes it again, and returns the port bound.
    private static func bind(port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard bound else { throw MosquittoBroker.BrokerError(message: "cannot bind loopback port \(port)") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    private static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }

    public static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
