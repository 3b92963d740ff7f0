import Foundation

/// RabbitMQ nodes (Debian's rabbitmq-server with its MQTT plugin) clustered on loopback, private to one test:
/// their own Erlang port mapper, cookie, ports and directories. The nodes form the cluster from their config
/// (classic peer discovery: each later node lists the first), are ready when their MQTT listener accepts, and stop on
/// SIGTERM as the service manager stops them — no rabbitmqctl, each of whose runs would start an Erlang VM.
public final class RabbitMQCluster: @unchecked Sendable {
    public struct Node: Sendable {
        public var name: String
        public var mqttPort: Int
        public var directory: String
    }

    public let nodes: [Node]
    private let environment: [String: String]
    private let portMapper: ChildProcess
    private var servers: [String: ChildProcess] = [:]
    private let lock = NSLock()

    static let server = "/usr/lib/rabbitmq/bin/rabbitmq-server"
    /// One scheduler each, and none spinning while idle (Erlang's default): three nodes would otherwise take
    /// the machine's two cores from the rest of the suite.
    static let quietVM = "+S 1:1 +SDcpu 1:1 +SDio 1 +A 1 +sbwt none +sbwtdcpu none +sbwtdio none"

    /// Starts the nodes one after the other (a node's boot takes a core for seconds); each after the first joins
    /// the cluster as it boots.
    public static func start(nodes count: Int = 3) async throws -> RabbitMQCluster {
        try await OffThePool.run { try RabbitMQCluster(count: count) }
    }

    private init(count: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.server) else {
            throw MosquittoBroker.BrokerError(message: "no rabbitmq-server: apt-get install rabbitmq-server")
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ridegate-rabbitmq-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        // Every node shares the cookie (in HOME) and a port mapper of their own.
        let cookie = "\(home)/.erlang.cookie"
        try "RIDEGATETEST\(UInt32.random(in: 0...UInt32.max))".write(toFile: cookie, atomically: true, encoding: .utf8)
        chmod(cookie, 0o400)
        try "[rabbitmq_mqtt].\n".write(toFile: "\(home)/enabled_plugins", atomically: true, encoding: .utf8)
        let epmdPort = try FreePort.loopback()
        environment = ["HOME": home, "PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "ERL_EPMD_PORT": String(epmdPort), "LANG": "C.UTF-8",
                       "RABBITMQ_ENABLED_PLUGINS_FILE": "\(home)/enabled_plugins", "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": Self.quietVM]
        // In the foreground, a child of the test: the nodes find it on its port and start none of their own (a
        // daemon would outlive the test).
        portMapper = try ChildProcess("/usr/bin/epmd", ["-port", String(epmdPort)], captureOutput: true, environment: environment)
        Self.waitUntil(seconds: 10) { FreePort.canConnect(port: epmdPort) }
        let suffix = String(UUID().uuidString.prefix(6)).lowercased()
        var nodes: [Node] = []
        for index in 1...count {
            nodes.append(Node(name: "rg\(index)\(suffix)@localhost", mqttPort: try FreePort.loopback(), directory: "\(home)/n\(index)"))
        }
        self.nodes = nodes
        for node in nodes {
            let server = try launch(node)
            Self.waitUntil(seconds: 120) { server.hasExited || FreePort.canConnect(port: node.mqttPort) }
            guard !server.hasExited, FreePort.canConnect(port: node.mqttPort) else {
                let log = (try? String(contentsOfFile: "\(node.directory)/log/\(node.name).log", encoding: .utf8)) ?? ""
                stop()
                throw MosquittoBroker.BrokerError(message: "RabbitMQ node \(node.name) did not start: "
                                                  + "\(server.lines.suffix(10).joined(separator: "\n"))\n\(log.suffix(3000))")
            }
        }
    }

    private static func waitUntil(seconds: Double, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(TestTime.seconds(seconds))
        while !condition(), Date() < deadline { usleep(100_000) }
    }

    private func launch(_ node: Node) throws -> ChildProcess {
        try FileManager.default.createDirectory(atPath: node.directory, withIntermediateDirectories: true)
        // The first node forms the cluster alone; each later one lists it and joins it as it boots (a first node
        // that listed the others would wait for them: RabbitMQ 4's peer discovery does).
        let peers = node.name == nodes.first?.name ? [] : [
            "cluster_formation.peer_discovery_backend = classic_config",
            "cluster_formation.classic_config.nodes.1 = \(nodes.first?.name ?? node.name)",
            "cluster_formation.classic_config.nodes.2 = \(node.name)",
        ]
        try ([
            "listeners.tcp.default = 127.0.0.1:\(try FreePort.loopback())",
            "mqtt.listeners.tcp.default = 127.0.0.1:\(node.mqttPort)",
            "mqtt.allow_anonymous = true",
            "loopback_users = none",
        ] + peers).joined(separator: "\n").write(toFile: "\(node.directory)/rabbitmq.conf", atomically: true, encoding: .utf8)
        var env = environment
        env["RABBITMQ_NODENAME"] = node.name
        env["RABBITMQ_BASE"] = node.directory
        env["RABBITMQ_CONFIG_FILE"] = "\(node.directory)/rabbitmq.conf"
        env["RABBITMQ_MNESIA_BASE"] = "\(node.directory)/mnesia"
        env["RABBITMQ_LOG_BASE"] = "\(node.directory)/log"
        env["RABBITMQ_PID_FILE"] = "\(node.directory)/pid"
        env["RABBITMQ_DIST_PORT"] = String(try FreePort.loopback())
        // As under systemd, the script execs the VM (no shell in between that a SIGKILL would leave it orphaned by):
        // SIGTERM stops the node in order, SIGKILL ends it. Nothing listens on the socket; the node carries on.
        env["NOTIFY_SOCKET"] = "\(node.directory)/no-service-manager"
        // Niced: a booting node takes a core for seconds, which the rest of the suite's tests, with their own
        // deadlines, need more.
        let server = try ChildProcess("/usr/bin/nice", ["-n", "15", Self.server], captureOutput: true, environment: env)
        lock.withLock { servers[node.name] = server }
        return server
    }

    /// Stops one node in order (SIGTERM, as systemd stops it: its clients are disconnected).
    public func stop(_ node: Node) async throws {
        try await OffThePool.run { [self] in
            let server = lock.withLock { servers.removeValue(forKey: node.name) }
            server?.signal(SIGTERM)
            server?.waitForExitBlocking(timeout: 60)
            server?.terminate()
        }
    }

    /// Stops every node and the port mapper (a node takes seconds to stop: waited for on a thread of its own).
    public func stop() {
        let running = lock.withLock { () -> [ChildProcess] in
            defer { servers.removeAll() }
            return Array(servers.values)
        }
        let portMapper = portMapper
        // Signalled now, waited for on a thread of its own: a test process that ends first leaves nodes that stop.
        for server in running { server.signal(SIGTERM) }
        portMapper.signal(SIGTERM)
        Thread {
            for server in running {
                server.waitForExitBlocking(timeout: 60)
                server.terminate()
            }
            portMapper.terminate()
        }.start()
    }

    deinit { stop() }
}
