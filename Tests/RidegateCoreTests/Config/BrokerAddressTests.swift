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
}
