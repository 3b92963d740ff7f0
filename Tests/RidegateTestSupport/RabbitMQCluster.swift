import Foundation

/// Three RabbitMQ nodes (Debian's rabbitmq-server with its MQTT plugin) clustered on loopback, private to one
/// test: their own Erlang port mapper, cookie, ports and directories, stopped with `stop()` or deinit.
public final class RabbitMQCluster: @unchecked Sendable {
    public struct Node: Sendable {
        public var name: String
        public var mqttPort: Int
        public var directory: String
    }

    public let nodes: [Node]
    private let home: String
    private let environment: [String: String]
    private var servers: [String: ChildProcess] = [:]
    private let portMapper: ChildProcess
    private let lock = NSLock()

    static let bin = "/usr/lib/rabbitmq/bin"

    /// Starts the nodes and joins the second and third to the first (about 20 s).
    public static func start(nodes count: Int = 3) async throws -> RabbitMQCluster {
        try await OffThePool.run { try RabbitMQCluster(count: count) }
    }

    private init(count: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: "\(Self.bin)/rabbitmq-server") else {
            throw MosquittoBroker.BrokerError(message: "no rabbitmq-server: apt-get install rabbitmq-server")
        }
        home = FileManager.default.temporaryDirectory.appendingPathComponent("ridegate-rabbitmq-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        // Every node and rabbitmqctl share the cookie (in HOME) and a port mapper of their own.
        let cookie = "\(home)/.erlang.cookie"
        try "RIDEGATETEST\(UInt32.random(in: 0...UInt32.max))".write(toFile: cookie, atomically: true, encoding: .utf8)
        chmod(cookie, 0o400)
        try "[rabbitmq_mqtt].\n".write(toFile: "\(home)/enabled_plugins", atomically: true, encoding: .utf8)
        let suffix = String(UUID().uuidString.prefix(6)).lowercased()
        let epmdPort = try FreePort.loopback()
        environment = ["HOME": home, "PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "ERL_EPMD_PORT": String(epmdPort),
                       "RABBITMQ_ENABLED_PLUGINS_FILE": "\(home)/enabled_plugins", "LANG": "C.UTF-8"]
        // In the foreground, a child of the test: the nodes find it on its port and start none of their own (a
        // daemon would outlive the test).
        portMapper = try ChildProcess("/usr/bin/epmd", ["-port", String(epmdPort)], captureOutput: true, environment: environment)
        let deadline = Date().addingTimeInterval(TestTime.seconds(10))
        while !FreePort.canConnect(port: epmdPort), Date() < deadline { usleep(20_000) }
        var nodes: [Node] = []
        for index in 1...count {
            nodes.append(Node(name: "rg\(index)\(suffix)@localhost", mqttPort: try FreePort.loopback(), directory: "\(home)/n\(index)"))
        }
        self.nodes = nodes
        for node in nodes { try launch(node) }
        for node in nodes { try awaitStartup(node) }
        for node in nodes.dropFirst() {
            try ctl(node, ["stop_app"])
            try ctl(node, ["join_cluster", nodes[0].name])
            try ctl(node, ["start_app"], timeout: 120)
        }
    }

    private func launch(_ node: Node) throws {
        try FileManager.default.createDirectory(atPath: node.directory, withIntermediateDirectories: true)
        try """
            listeners.tcp.default = 127.0.0.1:\(try FreePort.loopback())
            mqtt.listeners.tcp.default = 127.0.0.1:\(node.mqttPort)
            mqtt.allow_anonymous = true
            loopback_users = none
            """.write(toFile: "\(node.directory)/rabbitmq.conf", atomically: true, encoding: .utf8)
        var env = environment
        env["RABBITMQ_NODENAME"] = node.name
        env["RABBITMQ_BASE"] = node.directory
        env["RABBITMQ_CONFIG_FILE"] = "\(node.directory)/rabbitmq.conf"
        env["RABBITMQ_MNESIA_BASE"] = "\(node.directory)/mnesia"
        env["RABBITMQ_LOG_BASE"] = "\(node.directory)/log"
        env["RABBITMQ_PID_FILE"] = "\(node.directory)/pid"
        env["RABBITMQ_DIST_PORT"] = String(try FreePort.loopback())
        let server = try ChildProcess("\(Self.bin)/rabbitmq-server", [], captureOutput: true, environment: env)
        lock.withLock { servers[node.name] = server }
    }

    /// `await_startup` fails at once while the node has not yet registered with the port mapper: again, until
    /// it has booted, its server has exited, or two minutes pass.
    private func awaitStartup(_ node: Node) throws {
        let deadline = Date().addingTimeInterval(TestTime.seconds(120))
        while true {
            do {
                try ctl(node, ["await_startup", "--timeout", "120"], timeout: 150)
                return
            } catch {
                let exited = lock.withLock { servers[node.name]?.hasExited ?? true }
                if exited || Date() > deadline { throw error }
                usleep(500_000)
            }
        }
    }

    /// rabbitmqctl against one node; throws with its output when it fails.
    @discardableResult
    private func ctl(_ node: Node, _ arguments: [String], timeout: Double = 60) throws -> [String] {
        let child = try ChildProcess("\(Self.bin)/rabbitmqctl", ["-n", node.name] + arguments, captureOutput: true, environment: environment)
        let status = child.waitForExitBlocking(timeout: timeout)
        let said = child.lines
        guard let status, ChildProcess.exitCode(status) == 0 else {
            child.terminate()
            let log = (try? String(contentsOfFile: "\(node.directory)/log/\(node.name).log", encoding: .utf8)) ?? ""
            throw MosquittoBroker.BrokerError(message: "rabbitmqctl \(arguments.joined(separator: " ")) on \(node.name) failed: "
                                              + "\(said.suffix(10).joined(separator: "\n"))\n\(log.suffix(3000))")
        }
        return said
    }

    /// Stops one node in order (its clients are disconnected), as an operator or a crash would take it away.
    public func stop(_ node: Node) async throws {
        try await OffThePool.run { [self] in
            try ctl(node, ["stop"], timeout: 60)
            let server = lock.withLock { servers.removeValue(forKey: node.name) }
            server?.terminate()
        }
    }

    public func stop() {
        let running = lock.withLock { () -> [String: ChildProcess] in
            defer { servers.removeAll() }
            return servers
        }
        for node in nodes where running[node.name] != nil { _ = try? ctl(node, ["stop"], timeout: 30) }
        for server in running.values { server.terminate() }
        portMapper.terminate()
    }

    deinit { stop() }
}
