@testable import RidegateLinux
import Testing

@Suite struct DefaultRouteTests {
    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"

    @Test("IPv4: a default route that is up counts; a LAN route alone, or a default route down, does not")
    func ipv4() {
        #expect(DefaultRoute.ipv4(Self.header + "wlan0\t00000000\t0102A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n"))
        #expect(!DefaultRoute.ipv4(Self.header + "wlan0\t0002A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0\n"))
        #expect(!DefaultRoute.ipv4(Self.header + "wlan0\t00000000\t0102A8C0\t0002\t0\t0\t600\t00000000\t0\t0\t0\n"))
        #expect(!DefaultRoute.ipv4(Self.header) && !DefaultRoute.ipv4(""))
    }

    @Test("IPv6: ::/0 up and not a reject route, not on loopback")
    func ipv6() {
        let zero = String(repeating: "0", count: 32)
        let line = { (flags: String, iface: String) in "\(zero) 00 \(zero) 00 fe800000000000000000000000000001 00000400 00000001 00000000 \(flags) \(iface)\n" }
        #expect(DefaultRoute.ipv6(line("00000003", "wlan0")))
        #expect(!DefaultRoute.ipv6(line("00200200", "lo")))   // the kernel's unreachable default on loopback
        #expect(!DefaultRoute.ipv6(line("00000201", "wlan0"))) // a reject route
        #expect(!DefaultRoute.ipv6("fe800000000000000000000000000000 40 \(zero) 00 \(zero) 00000100 00000001 00000000 00000001 wlan0\n"))
    }
}
