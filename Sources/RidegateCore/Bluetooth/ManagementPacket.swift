/// The kernel's Bluetooth management protocol (BlueZ doc/mgmt-api.txt), on an HCI socket bound to
/// HCI_CHANNEL_CONTROL: what btmgmt and bluetoothd use, multiplexed by the kernel so ridegate can scan
/// beside a running bluetoothd. Packets are `opcode/event (u16), controller index (u16), length (u16),
/// parameters`, little-endian.
public enum ManagementCommand {
    public static let readControllerIndexList: UInt16 = 0x0003
    public static let readControllerInformation: UInt16 = 0x0004
    public static let startDiscovery: UInt16 = 0x0023
    public static let stopDiscovery: UInt16 = 0x0024

    /// Address types for discovery: LE public (bit 1) and LE random (bit 2).
    public static let lowEnergy: UInt8 = 0x06
    public static let noController: UInt16 = 0xFFFF

    public static func packet(_ opcode: UInt16, index: UInt16, parameters: [UInt8] = []) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        return u16(opcode) + u16(index) + u16(UInt16(parameters.count)) + parameters
    }
}

public enum ManagementEvent: Sendable, Equatable {
    case commandComplete(opcode: UInt16, status: UInt8, parameters: [UInt8])
    case commandStatus(opcode: UInt16, status: UInt8)
    case deviceFound(DeviceFound)
    case discovering(active: Bool)
    case indexRemoved
    case other(code: UInt16)

    public struct DeviceFound: Sendable, Equatable {
        public var address: BluetoothAddress
        public var rssi: Int
        public var advertising: AdvertisingData
    }

    /// Decodes one event packet; nil when it is truncated (the kernel never sends one, but a fuzzer might).
    public init?(packet: [UInt8], index: inout UInt16) {
        guard packet.count >= 6 else { return nil }
        let code = UInt16(packet[0]) | UInt16(packet[1]) << 8
        index = UInt16(packet[2]) | UInt16(packet[3]) << 8
        let length = Int(UInt16(packet[4]) | UInt16(packet[5]) << 8)
        guard packet.count >= 6 + length else { return nil }
        let p = Array(packet[6..<(6 + length)])
        switch code {
        case 0x0001:
            guard p.count >= 3 else { return nil }
            self = .commandComplete(opcode: UInt16(p[0]) | UInt16(p[1]) << 8, status: p[2], parameters: Array(p.dropFirst(3)))
        case 0x0002:
            guard p.count >= 3 else { return nil }
            self = .commandStatus(opcode: UInt16(p[0]) | UInt16(p[1]) << 8, status: p[2])
        case 0x0005:
            self = .indexRemoved
        case 0x0012:
            // Address (6, little-endian), address type (1), RSSI (1, signed), flags (4), EIR length (2), EIR.
            guard p.count >= 14 else { return nil }
            let eirLength = Int(UInt16(p[12]) | UInt16(p[13]) << 8)
            guard p.count >= 14 + eirLength else { return nil }
            let kind: BluetoothAddress.Kind = p[6] == 2 ? .random : .public
            self = .deviceFound(DeviceFound(address: BluetoothAddress(bytes: p[0..<6].reversed(), kind: kind),
                                            rssi: Int(Int8(bitPattern: p[7])),
                                            advertising: AdvertisingData(parsing: Array(p[14..<(14 + eirLength)]))))
        case 0x0013:
            guard p.count >= 2 else { return nil }
            self = .discovering(active: p[1] != 0)
        default:
            self = .other(code: code)
        }
    }

    /// mgmt-api.txt status codes that need a person's attention.
    public static func describe(status: UInt8) -> String {
        switch status {
        case 0x00: "success"
        case 0x01: "unknown command"
        case 0x0A: "busy (another discovery is running)"
        case 0x0D: "invalid parameters"
        case 0x0F: "the adapter is powered off (bluetoothctl power on)"
        case 0x11: "invalid index (no such adapter)"
        case 0x12: "the adapter is blocked by rfkill (rfkill unblock bluetooth)"
        case 0x14: "permission denied (needs CAP_NET_ADMIN: run as root or through the systemd unit)"
        default: "status 0x" + [status].hexString
        }
    }
}
