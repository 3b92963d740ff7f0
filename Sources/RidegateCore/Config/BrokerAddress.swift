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

    /// Why a host name on its own (the config's `mqtt.host`, its port in `mqtt.port`) cannot be connected to,
    /// in words a user can act on; nil when it can be tried.
    public static func hostProblem(_ host: String, portKey: String = "mqtt.port") -> String? {
        if host.isEmpty { return "the host is empty; write a name or an address, e.g. \"localhost\" or \"192.168.1.10\"" }
        if host.contains("://") { return "no scheme is needed (mqtt:// or tcp://); write the name alone, e.g. \"broker.example.org\" (TLS is mqtt.ca_file)" }
        if host.contains(where: { $0 == " " || $0 == "\t" || $0 == "/" }) { return "a host name has no spaces or slashes" }
        let colons = host.filter { $0 == ":" }.count
        if colons == 1 || (host.hasPrefix("[") && host.contains("]:")) {
            return "a port goes in \(portKey), not in the host: write the host alone and the port there"
        }
        if host.hasPrefix("[") { return "an IPv6 address goes without brackets here, e.g. \"::1\"" }
        if host.utf8.count > 253 { return "a host name has at most 253 characters" }
        let allowed = colons >= 2 ? "0123456789abcdefABCDEF:." : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._"
        if let bad = host.first(where: { !allowed.contains($0) }) {
            return colons >= 2 ? "'\(bad)' has no place in an IPv6 address" : "'\(bad)' has no place in a host name (letters, digits, '-' and '.')"
        }
        return nil
    }
}
