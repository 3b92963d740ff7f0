/// `[mqtt]`: the broker, the session, TLS, the spool, Home Assistant's discovery.
extension GatewayConfig {
    public struct MQTT: Sendable, Equatable {
        public var host = "localhost"
        public var port = 1883
        /// `hosts` after the first (which is `host`/`port`): the brokers of a cluster, tried in turn.
        public var otherBrokers: [BrokerAddress] = []
        public var prefix = "ridegate"
        public var clientID: String?
        public var keepaliveSeconds = 30
        public var qos = 1
        public var username: String?
        public var passwordFile: String?
        public var reconnectMinSeconds = 1
        public var reconnectMaxSeconds = 30
        /// 4 for MQTT 3.1.1, 5 for MQTT 5.
        public var protocolVersion = 4
        public var caFile: String?
        public var certificateFile: String?
        public var keyFile: String?
        public var spoolMaxMegabytes = 200
        /// Backlog readings replayed a second at most after a reconnect (0: as fast as the broker takes them).
        public var replayPerSecond = 50.0
        /// 0: no limit.
        public var maxHeartRatePerSecond = 0.0
        public var maxGPSPerSecond = 0.0
        public var homeAssistantDiscovery = true
        public var homeAssistantPrefix = "homeassistant"
    }

    static func mqtt(_ table: ConfigTableReader) throws(ConfigError) -> MQTT {
        var m = table
        var mqtt = MQTT()
        mqtt.host = try m.string("host", default: mqtt.host, maxBytes: 253) // the longest DNS name
        if let problem = BrokerAddress.hostProblem(mqtt.host) { throw m.error("host", m.table["host"], "\"\(mqtt.host)\": \(problem)") }
        mqtt.port = try m.integer("port", default: mqtt.port, range: 1...65535)
        if let brokers = try Self.hosts(&m, defaultPort: mqtt.port) {
            mqtt.host = brokers[0].host
            mqtt.port = brokers[0].port
            mqtt.otherBrokers = Array(brokers.dropFirst())
        }
        mqtt.prefix = try m.string("prefix", default: mqtt.prefix, maxBytes: Self.longestPrefix)
        guard !mqtt.prefix.isEmpty, !mqtt.prefix.contains(where: { "#+".contains($0) }), !mqtt.prefix.hasSuffix("/") else {
            throw m.error("prefix", m.table["prefix"], "\"\(mqtt.prefix)\" is not a topic prefix; use e.g. \"ridegate\" or \"home/bike\" (no '#', '+', or trailing '/')")
        }
        mqtt.clientID = try m.optionalString("client_id", maxBytes: 128)
        if mqtt.clientID?.isEmpty == true { throw m.error("client_id", m.table["client_id"], "is empty; leave it out for ridegate-<device_id>, or name the client") }
        mqtt.keepaliveSeconds = try m.integer("keepalive_s", default: mqtt.keepaliveSeconds, range: 5...3600)
        mqtt.qos = try m.integer("qos", default: mqtt.qos, range: 0...2)
        mqtt.username = try m.optionalString("username", maxBytes: 256)
        mqtt.passwordFile = try m.optionalString("password_file")
        mqtt.reconnectMinSeconds = try m.integer("reconnect_min_s", default: mqtt.reconnectMinSeconds, range: 1...300)
        mqtt.reconnectMaxSeconds = try m.integer("reconnect_max_s", default: mqtt.reconnectMaxSeconds, range: 1...3600)
        let protocolName = try m.choice("protocol", default: "3.1.1", allowed: ["3.1.1", "5"])
        mqtt.protocolVersion = protocolName == "5" ? 5 : 4
        mqtt.caFile = try m.optionalString("ca_file")
        mqtt.certificateFile = try m.optionalString("cert_file")
        mqtt.keyFile = try m.optionalString("key_file")
        if (mqtt.certificateFile != nil || mqtt.keyFile != nil) && mqtt.caFile == nil {
            throw m.error("cert_file", m.table["cert_file"] ?? m.table["key_file"], "a client certificate needs TLS: set mqtt.ca_file to the CA that signed the broker's certificate")
        }
        if (mqtt.certificateFile == nil) != (mqtt.keyFile == nil) {
            throw m.error(mqtt.keyFile == nil ? "cert_file" : "key_file", m.table["cert_file"] ?? m.table["key_file"], "set both mqtt.cert_file and mqtt.key_file, or neither")
        }
        mqtt.homeAssistantDiscovery = try m.bool("homeassistant_discovery", default: true)
        mqtt.homeAssistantPrefix = try m.string("homeassistant_prefix", default: mqtt.homeAssistantPrefix, maxBytes: Self.longestPrefix)
        mqtt.spoolMaxMegabytes = try m.integer("spool_max_mb", default: mqtt.spoolMaxMegabytes, range: 1...100_000)
        mqtt.replayPerSecond = try m.number("replay_per_s", default: mqtt.replayPerSecond, range: 0...10_000)
        mqtt.maxHeartRatePerSecond = try m.number("max_heart_rate_per_s", default: 0, range: 0...100)
        mqtt.maxGPSPerSecond = try m.number("max_gps_per_s", default: 0, range: 0...100)
        guard mqtt.reconnectMaxSeconds >= mqtt.reconnectMinSeconds else {
            throw m.error("reconnect_max_s", m.table["reconnect_max_s"], "\(mqtt.reconnectMaxSeconds) is below reconnect_min_s (\(mqtt.reconnectMinSeconds))")
        }
        try m.finish()
        return mqtt
    }

    /// `hosts = ["a:8883", "b:8883"]`: a cluster's brokers, each `host` or `host:port` (`port` by default);
    /// nil when not set. Not together with `host`.
    static func hosts(_ m: inout ConfigTableReader, defaultPort: Int) throws(ConfigError) -> [BrokerAddress]? {
        guard let node = m.table["hosts"] else { return nil }
        let texts = try m.strings("hosts", default: [])
        guard (1...16).contains(texts.count) else {
            throw m.error("hosts", node, "list 1 to 16 brokers, e.g. hosts = [\"mqtt-a.example.org:8883\", \"mqtt-b.example.org:8883\"]")
        }
        if m.table["host"] != nil { throw m.error("hosts", node, "set either mqtt.host (one broker) or mqtt.hosts (a cluster's brokers), not both") }
        var brokers: [BrokerAddress] = []
        for text in texts {
            do throws(BrokerAddress.ParseError) {
                let broker = try BrokerAddress(parsing: text, defaultPort: defaultPort, what: "a broker address", example: "mqtt-a.example.org:8883")
                if let problem = BrokerAddress.hostProblem(broker.host) { throw BrokerAddress.ParseError(description: "\"\(text)\": \(problem)") }
                brokers.append(broker)
            } catch {
                throw m.error("hosts", node, error.description)
            }
        }
        return brokers
    }
}
