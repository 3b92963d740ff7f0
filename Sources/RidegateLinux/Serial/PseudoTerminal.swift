import CLinuxShim
import Glibc

/// A pty pair: the controller side for whoever plays the device (the demo's replayed GPS, tests), the
/// device path (`/dev/pts/N`) for the real serial reader, exactly as it would open a USB receiver.
public final class PseudoTerminal: Sendable {
    public let controller: FileDescriptor
    public let devicePath: String

    /// posix_openpt(3), grantpt(3), unlockpt(3), ptsname_r(3), through the C shim.
    public init() throws(SystemCallError) {
        var name = [CChar](repeating: 0, count: 128)
        let fd = rg_open_pty(&name, name.count)
        guard fd >= 0 else { throw SystemCallError("posix_openpt", "/dev/ptmx", .current) }
        // Raw on the controller side too, so bytes pass through untouched (no echo, no CR/LF mapping).
        var tio = termios()
        if tcgetattr(fd, &tio) == 0 {
            cfmakeraw(&tio)
            tcsetattr(fd, TCSANOW, &tio)
        }
        controller = FileDescriptor(rawValue: fd)
        devicePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Closing the controller hangs up the device side: the reader sees EOF or EIO, as on an unplug.
    public func close() {
        controller.close()
    }
}
