/// A broker given on the command line: `host`, `host:port`, or `[v6-address]:port`.
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

    public init(parsing text: String) throws(ParseError) {
        func fail(_ why: String) -> ParseError { ParseError(description: "\"\(text)\" is not a broker address: \(why); write host or host:port, e.g. localhost:1883 or [::1]:1883") }
        if text.contains("://") { throw fail("no scheme is needed (mqtt:// or tcp://): TLS is set in the config's [mqtt] ca_file") }
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
        var port = 1883
        if let portText {
            guard let value = Int(portText) else { throw fail("the port \"\(portText)\" is not a number") }
            guard (1...65535).contains(value) else { throw fail("the port \(value) is not between 1 and 65535") }
            port = value
        }
        self.init(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
