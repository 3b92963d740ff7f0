import CBluetooth
import Glibc
import RidegateCore

/// Opens the ATT fixed channel (L2CAP CID 4) to an LE device: a non-blocking connect(2) that is given
/// `timeout` seconds (poll(2) for writability, then SO_ERROR), with the peer's address type, since a
/// random-address strap cannot be reached as a public one.
public enum L2CAPConnector {
    static let attChannel: UInt16 = 4

    public static func connect(to address: BluetoothAddress, timeout: Double = 10, on loop: EventLoop) async throws(BluetoothError) -> ATTBearer {
        let fd = socket(Int32(AF_BLUETOOTH), Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                        Int32(BTPROTO_L2CAP))
        guard fd >= 0 else { throw BluetoothError.socket(.current) }
        func fail(_ error: BluetoothError) -> BluetoothError {
            Glibc.close(fd)
            return error
        }

        var local = sockaddr_l2()
        local.l2_family = sa_family_t(AF_BLUETOOTH)
        local.l2_cid = attChannel.littleEndian
        local.l2_bdaddr_type = UInt8(BDADDR_LE_PUBLIC)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size)) }
        }
        guard bound == 0 else { throw fail(.bind(.current)) }

        // Low security: heart-rate straps do not pair; a strap that insists answers with an ATT error.
        var security = bt_security(level: UInt8(BT_SECURITY_LOW), key_size: 0)
        _ = setsockopt(fd, Int32(SOL_BLUETOOTH), BT_SECURITY, &security, socklen_t(MemoryLayout<bt_security>.size))

        var remote = sockaddr_l2()
        remote.l2_family = sa_family_t(AF_BLUETOOTH)
        remote.l2_cid = attChannel.littleEndian
        remote.l2_bdaddr_type = UInt8(address.kind == .random ? BDADDR_LE_RANDOM : BDADDR_LE_PUBLIC)
        // bdaddr_t is little-endian: the last byte of AA:BB:CC:DD:EE:FF comes first.
        let b = address.bytes.reversed().map { $0 }
        guard b.count == 6 else { throw fail(.connect(address: address.description, errno: Errno(rawValue: EINVAL))) }
        remote.l2_bdaddr.b = (b[0], b[1], b[2], b[3], b[4], b[5])
        let started = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size)) }
        }
        if started != 0 {
            let e = Errno.current
            guard e == .inProgress || e == .wouldBlock else { throw fail(.connect(address: address.description, errno: e)) }
            guard await FileReadiness.writable(FileDescriptor(rawValue: fd), timeout: timeout, on: loop) else {
                throw fail(.connectTimeout(address: address.description, seconds: timeout))
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            guard soError == 0 else { throw fail(.connect(address: address.description, errno: Errno(rawValue: soError))) }
        }
        return ATTBearer(descriptor: FileDescriptor(rawValue: fd), label: address.description, loop: loop)
    }
}
