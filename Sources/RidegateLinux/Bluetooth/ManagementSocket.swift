import CBluetooth
import Glibc
import RidegateCore

/// The kernel's Bluetooth management interface: an HCI socket on HCI_CHANNEL_CONTROL (BlueZ
/// doc/mgmt-api.txt). Discovery through it coexists with bluetoothd, and leaves the adapter's power and
/// scanning as it found them once stopped.
public final class ManagementSocket: Sendable {
    public let descriptor: FileDescriptor
    /// Every event packet from the kernel.
    public let events: ChunkStream

    /// socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) + bind(HCI_DEV_NONE, HCI_CHANNEL_CONTROL).
    public init(loop: EventLoop) throws(BluetoothError) {
        let fd = socket(Int32(AF_BLUETOOTH), Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Int32(BTPROTO_HCI))
        guard fd >= 0 else { throw BluetoothError.socket(.current) }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(HCI_DEV_NONE)
        address.hci_channel = UInt16(HCI_CHANNEL_CONTROL)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard bound == 0 else {
            let e = Errno.current
            Glibc.close(fd)
            throw BluetoothError.bind(e)
        }
        descriptor = FileDescriptor(rawValue: fd)
        events = ReadableChunks.stream(descriptor, label: "mgmt", on: loop)
    }

    public func send(_ packet: [UInt8]) throws(BluetoothError) {
        let result = packet.withUnsafeBytes { raw in retryingOnInterrupt { Glibc.write(descriptor.rawValue, raw.baseAddress, raw.count) } }
        if case .failure(let e) = result { throw BluetoothError.command(e) }
    }
}

public enum BluetoothError: Error, Sendable, CustomStringConvertible {
    case socket(Errno)
    case bind(Errno)
    case command(Errno)
    case noAdapter
    case poweredOff(index: UInt16)
    case management(operation: String, status: UInt8)
    case connect(address: String, errno: Errno)
    case connectTimeout(address: String, seconds: Double)

    public var description: String {
        switch self {
        case .socket(let e) where e.rawValue == EAFNOSUPPORT:
            return "this kernel has no Bluetooth support (AF_BLUETOOTH): load it with `modprobe bluetooth` or use a kernel with Bluetooth"
        case .socket(let e), .bind(let e), .command(let e):
            if e.rawValue == EPERM || e.rawValue == EACCES {
                return "Bluetooth management needs CAP_NET_ADMIN and CAP_NET_RAW: run as root or through the systemd unit, which grants them (\(e))"
            }
            return "cannot open the Bluetooth management socket: \(e)"
        case .noAdapter:
            return "no Bluetooth adapter found; check `bluetoothctl list` (on a Pi 3/4 with a GPS on the UART, see docs/hardware.md)"
        case .poweredOff(let index):
            return "Bluetooth adapter hci\(index) is powered off (or rfkill-blocked); run `rfkill unblock bluetooth` and `bluetoothctl power on`"
        case .management(let operation, let status):
            return "Bluetooth \(operation) failed: \(ManagementEvent.describe(status: status))"
        case .connect(let address, let e):
            if e.rawValue == EPERM || e.rawValue == EACCES {
                return "connecting to \(address) needs CAP_NET_RAW: run as root or through the systemd unit"
            }
            return "cannot connect to \(address): \(e)"
        case .connectTimeout(let address, let seconds):
            return "\(address) did not accept the connection within \(Int(seconds)) s (out of range, or connected to another device)"
        }
    }
}
