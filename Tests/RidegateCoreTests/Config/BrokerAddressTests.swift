import RidegateCore
import Testing

@Suite struct BrokerAddressTests {
    @Test("host, host:port, [v6]:port")
    func valid() throws {
        #expect(try BrokerAddress(parsing: "pi.local") == BrokerAddress(host: "pi.local", port: 1883))
        #expect(try BrokerAddress(parsing: "10.0.0.2:8883") == BrokerAddress(host: "10.0.0.2", port: 8883))
        #expect(try BrokerAddress(parsing: "[::1]:1884") == BrokerAddress(host: "::1", port: 1884))
        #expect(try BrokerAddress(parsing: "[fe80::1]").description == "[fe80::1]:1883")
    }

    @Test("Each mistake says what is wrong", arguments: [
        ("", "the host is empty"), (":1883", "the host is empty"), ("mqtt://pi:1883", "no scheme is needed"),
        ("pi:x", "the port \"x\" is not a number"), ("pi:0", "not between 1 and 65535"), ("pi:", "the port \"\" is not a number"),
        ("::1", "more than one ':'"), ("[::1", "is not closed"), ("[::1]1883", "expected :port after ]"), ("my pi", "no spaces"),
    ])
    func invalid(_ text: String, _ reason: String) {
        #expect {
            _ = try BrokerAddress(parsing: text)
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".contains("e.g. localhost:1883")
        }
    }

    func mqtt(_ text: String) -> Result<GatewayConfig.MQTT, ConfigError> {
        do throws(ConfigError) {
            return .success(try ConfigDocument.parse(Array(("[mqtt]\n" + text).utf8), file: "c.toml").mqtt)
        } catch {
            return .failure(error)
        }
    }

    @Test("mqtt.hosts: the first is host and port, the rest tried after it; with host, empty, or a bad entry: refused saying what to write")
    func hosts() throws {
        let cluster = try mqtt("port = 8883\nhosts = [\"a.example.org\", \"b.example.org:1884\", \"[::1]\"]\n").get()
        #expect(cluster.host == "a.example.org" && cluster.port == 8883)
        #expect(cluster.otherBrokers == [BrokerAddress(host: "b.example.org", port: 1884), BrokerAddress(host: "::1", port: 8883)])
        for (text, says) in [("host = \"a\"\nhosts = [\"b\"]\n", "set either mqtt.host (one broker) or mqtt.hosts"),
                             ("hosts = []\n", "list 1 to 16 brokers"),
                             ("hosts = [\"mqtt://a\"]\n", "no scheme is needed"),
                             ("hosts = [\"a:99999\"]\n", "a:99999")] {
            guard case .failure(let error) = mqtt(text) else {
                Issue.record("accepted: \(text)")
                continue
            }
            #expect(error.description.contains(says) && error.description.contains("hosts"), "\(error)")
        }
    }
}
