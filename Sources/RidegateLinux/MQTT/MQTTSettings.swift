import CMosquitto
import Glibc
import RidegateCore
/// How to reach the broker; built from the config by the wiring.
public struct MQTTSettings: Sendable {
    public var host: String
    public var port: Int
    /// More brokers (a cluster's), tried in turn after `host`/`port`: an attempt that fails moves to the next.
    public var otherBrokers: [BrokerAddress] = []
    /// Every broker, `host`/`port` first.
    public var brokers: [BrokerAddress] { [BrokerAddress(host: host, port: port)] + otherBrokers }
    public var clientID: String
    public var keepaliveSeconds: Int
    public var username: String?
    public var password: String?
    public var reconnectMinSeconds: Int
    public var reconnectMaxSeconds: Int
    /// Full topic of the retained online/offline status, also the last will; nil for a one-off probe
    /// (`ridegate doctor`), which must leave nothing retained behind.
    public var statusTopic: String?
    /// 4 (MQTT 3.1.1) or 5.
    public var protocolVersion: Int
    /// Home Assistant's birth/will topic; when it says `online`, discovery configs are sent again.
    public var homeAssistantStatusTopic: String?
    /// Topic filters read besides it (`ridegate watch`'s), at QoS 0: subscribed again at every connect.
    public var subscriptions: [String] = []
    public var tls: TLS?
    /// Clear every retained topic this client published, the status too, at an orderly stop (the demo: what it
    /// showed must not outlive it on a broker a Home Assistant reads).
    public var clearRetainedAtStop = false
    /// With `clearRetainedAtStop`: retained topics a killed earlier run may have left that this run may never
    /// publish (the demo's positions, held back while its ride is in a privacy zone), cleared at the stop too.
    public var alsoClearAtStop: [String] = []

    public struct TLS: Sendable {
        public var caFile: String
        public var certificateFile: String?
        public var keyFile: String?

        public init(caFile: String, certificateFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    public init(host: String, port: Int, clientID: String, keepaliveSeconds: Int = 30, username: String? = nil,
                password: String? = nil, reconnectMinSeconds: Int = 1, reconnectMaxSeconds: Int = 30, statusTopic: String?,
                protocolVersion: Int = 4, homeAssistantStatusTopic: String? = nil, tls: TLS? = nil) {
        self.homeAssistantStatusTopic = homeAssistantStatusTopic
        self.protocolVersion = protocolVersion
        self.tls = tls
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepaliveSeconds = keepaliveSeconds
        self.username = username
        self.password = password
        self.reconnectMinSeconds = reconnectMinSeconds
        self.reconnectMaxSeconds = reconnectMaxSeconds
        self.statusTopic = statusTopic
    }
}

public struct MQTTError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var code: Int32
    public var detail: String

    public var description: String { "mqtt \(operation): \(detail)" }
}

extension MQTTSettings {
    /// What every connection of ridegate's sets on a libmosquitto handle: the protocol version, the
    /// credentials, TLS with the broker verified.
    func apply(to mosq: OpaquePointer) throws(MQTTError) {
        if protocolVersion == 5 {
            try Self.check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V5)), "protocol version")
        }
        if let user = username {
            try Self.check(mosquitto_username_pw_set(mosq, user, password), "credentials")
        }
        if let tls {
            let rc = mosquitto_tls_set(mosq, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTError(operation: "tls", code: rc, detail: "cannot use the TLS files (ca \(tls.caFile)): \(MosquittoConnection.describe(rc))")
            }
            // Verify the broker (SSL_VERIFY_PEER); no version pinned: libmosquitto 2.x and OpenSSL 3 allow only
            // TLS 1.2 and 1.3 by default, and pinning "tlsv1.2" fails on trixie's libmosquitto 2.0.21.
            try Self.check(mosquitto_tls_opts_set(mosq, 1, nil, nil), "tls options")
        }
    }

    static func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(operation: what, code: rc, detail: "cannot set the MQTT \(what): \(MosquittoConnection.describe(rc))")
        }
    }
}
