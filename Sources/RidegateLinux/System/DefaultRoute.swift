/// Whether this machine has a way out to the internet: a default route, IPv4 or IPv6 (the kernel's tables in
/// /proc). A bike away from its Wi-Fi has none, and then no upload is tried at all.
public enum DefaultRoute {
    public static func present() -> Bool {
        ipv4((try? TextFile.read("/proc/net/route")) ?? "") || ipv6((try? TextFile.read("/proc/net/ipv6_route")) ?? "") // unreadable: none
    }

    /// `/proc/net/route`: a line whose destination and mask are 0 and whose flags have RTF_UP.
    static func ipv4(_ table: String) -> Bool {
        table.split(separator: "\n").dropFirst().contains { line in
            let f = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard f.count >= 8, f[1] == "00000000", f[7] == "00000000", let flags = Int(f[3], radix: 16) else { return false }
            return flags & 0x1 != 0
        }
    }

    /// `/proc/net/ipv6_route`: ::/0, up, not a reject route, not on loopback.
    static func ipv6(_ table: String) -> Bool {
        table.split(separator: "\n").contains { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 10, f[0].allSatisfy({ $0 == "0" }), f[1] == "00", f[9] != "lo", let flags = Int(f[8], radix: 16) else { return false }
            return flags & 0x1 != 0 && flags & 0x200 == 0
        }
    }
}
