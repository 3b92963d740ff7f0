import Foundation
import RidegateTestSupport
import Testing

/// The udev rules and the systemd unit, parsed: what a typo there would silently break on a Pi.
@Suite struct DeployFilesTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: RepositoryPaths.repository + "/" + path, encoding: .utf8)
    }

    /// Rule lines as key/operator/value triples.
    static func rules() throws -> [[(key: String, op: String, value: String)]] {
        try read("udev/60-ridegate.rules").split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.allSatisfy(\.isWhitespace) }.map { line in
            line.split(separator: ",").map { part -> (String, String, String) in
                let text = part.trimmingCharacters(in: .whitespaces)
                for op in ["==", "!=", "+=", ":=", "="] {
                    if let range = text.range(of: op) {
                        let value = text[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                        return (String(text[..<range.lowerBound]), op, value)
                    }
                }
                return (text, "", "")
            }
        }
    }

    @Test("Every documented USB GPS vendor:product and the Pi's header UART get /dev/ridegate-gps, group dialout, and a systemd device unit")
    func gpsRules() throws {
        let rules = try Self.rules()
        let expected = ["1546": "01a[6-9]", "067b": "2303|23a3", "10c4": "ea60", "0403": "6001|6015", "1a86": "7523"]
        for (vendor, products) in expected {
            let rule = try #require(rules.first { $0.contains { $0.key == "ATTRS{idVendor}" && $0.value == vendor } }, "vendor \(vendor)")
            #expect(rule.contains { $0.key == "ATTRS{idProduct}" && $0.op == "==" && $0.value == products })
            #expect(rule.contains { $0.key == "SUBSYSTEM" && $0.value == "tty" })
            #expect(rule.contains { $0.key == "SYMLINK" && $0.op == "+=" && $0.value == "ridegate-gps" })
            #expect(rule.contains { $0.key == "GROUP" && $0.value == "dialout" })
            #expect(rule.contains { $0.key == "TAG" && $0.op == "+=" && $0.value == "systemd" })
        }
        let uart = try #require(rules.first { $0.contains { $0.key == "KERNEL" && $0.value == "ttyS0|ttyS1|ttyAMA0" } }, "the Pi's header UART on both kernels")
        #expect(uart.contains { $0.key == "DRIVERS" && $0.value == "bcm2835-aux-uart|uart-pl011" }, "a PC's ttyS0 must not match")
        #expect(uart.contains { $0.key == "SYMLINK" && $0.op == "+=" && $0.value == "ridegate-gps" })
        #expect(uart.contains { $0.key == "OPTIONS" && $0.value.hasPrefix("link_priority=-") }, "a USB receiver must win the link")
        for rule in rules { #expect(rule.allSatisfy { !$0.op.isEmpty }, "unparsable: \(rule)") }
        #expect(rules.contains { $0.contains { $0.key == "KERNEL" && $0.value == "gpiochip*" } && $0.contains { $0.key == "GROUP" && $0.value == "gpio" } })
    }

    @Test("The unit is Type=notify with a watchdog, switches the LED off after stopping, and keeps its privileges small")
    func unit() throws {
        let unit = try Self.read("deploy/ridegate.service")
        let settings = unit.split(separator: "\n").filter { $0.contains("=") && !$0.hasPrefix("#") }.map(String.init)
        for line in ["Type=notify", "WatchdogSec=30", "Restart=on-failure", "User=ridegate", "SupplementaryGroups=dialout gpio",
                     "AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN", "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN",
                     "StateDirectory=ridegate", "StateDirectoryMode=0700", "UMask=0077", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
                     "ExecStopPost=-/usr/bin/ridegate led off --config /etc/ridegate/ridegate.toml"] {
            #expect(settings.contains(line), "missing \(line)")
        }
        let families = settings.first { $0.hasPrefix("RestrictAddressFamilies=") } ?? ""
        #expect(families.contains("AF_BLUETOOTH") && families.contains("AF_UNIX") && families.contains("AF_INET"))
    }

    @Test("Both installers create the system user and put it in dialout (the GPS) and gpio (the LED)")
    func installersGrantDeviceGroups() throws {
        for file in ["deploy/debian/postinst", "deploy/install.sh"] {
            let lines = try Self.read(file).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
            #expect(lines.contains { $0.hasPrefix("useradd --system") && $0.hasSuffix(" ridegate") }, "\(file): no system user")
            #expect(lines.contains("usermod -a -G dialout,gpio ridegate"), "\(file): the user is not put in dialout and gpio")
            #expect(lines.contains { $0.contains("groupadd") && $0.contains("gpio") }, "\(file): no gpio group where the system has none")
        }
    }

    @Test("The example config shows every key docs/config.md documents (set or commented; ConfigLoaderTests parses it)")
    func exampleConfigComplete() throws {
        let example = try Self.read("deploy/ridegate.toml.example")
        let keys = try Self.read("docs/config.md").split(separator: "\n").filter { $0.hasPrefix("| `") }.flatMap { row -> [String] in
            // The first cell: `key` or `key`, `other`.
            let cell = row.dropFirst(2).prefix { $0 != "|" }
            return cell.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
        }
        #expect(keys.count > 50, "docs/config.md's tables not found")
        let missing = Set(keys).filter { key in !example.contains("\(key) = ") && !example.contains("\(key) =") }
        #expect(missing.isEmpty, "deploy/ridegate.toml.example lacks \(missing.sorted())")
    }
}
