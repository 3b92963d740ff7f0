/// A host and port as a person writes them: `host`, `host:port`, or `[v6-address]:port` (a broker on the
/// command line, gpsd in the config).
public struct BrokerAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int = 1883) {
        self.host = host
        self.port = port
    }

    /// Why a text is not a broker address, in words a user can act on.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// `what` and `example` word the error: "a broker address", "localhost:1883 or [::1]:1883".
    public init(parsing text: String, defaultPort: Int = 1883, what: String = "a broker address",
                example: String = "localhost:1883 or [::1]:1883") throws(ParseError) {
        func fail(_ why: String) -> ParseError { ParseError(description: "\"\(text)\" is not \(what): \(why); write host or host:port, e.g. \(example)") }
        if text.contains("://") { throw fail("no scheme is needed (mqtt:// or tcp://): TLS for MQTT is set in the config's [mqtt] ca_file") }
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw fail("the [ of an IPv6 address is not closed") }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw fail("expected :port after ]") }
                portText = rest.dropFirst()
            }
        } else if let colon = host.firstIndex(of: ":") {
            guard host[host.index(after: colon)...].firstIndex(of: ":") == nil else {
                throw fail("more than one ':' (an IPv6 address goes in brackets: [::1]:1883)")
            }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw fail("the host is empty") }
        guard !host.contains(where: { $0 == " " || $0 == "/" }) else { throw fail("a host has no spaces or slashes (no mqtt:// prefix)") }
        var port = defaultPort
        if let portText {
            guard let value = Int(portText) else { throw fail("the port \"\(portText)\" is not a number") }
            guard (1...65535).contains(value) else { throw fail("the port \(value) is not between 1 and 65535") }
            port = value
        }
        self.init(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
