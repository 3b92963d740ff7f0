import Glibc
import RidegateCore

/// A serial device (USB GPS puck, the Pi's UART, a pty in tests) opened in raw mode at a fixed rate.
public struct SerialPort: Sendable {
    public let path: String
    public let descriptor: FileDescriptor

    /// open(2) with O_NOCTTY, then tcsetattr(3) raw 8N1, no flow control, receiver on.
    public static func open(path: String, baud: Int) throws(SerialPortError) -> SerialPort {
        guard let speed = speedConstant(baud) else { throw .unsupportedBaud(path: path, baud: baud) }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        } catch {
            throw .open(path: path, errno: error)
        }
        var tio = termios()
        guard tcgetattr(fd.rawValue, &tio) == 0 else {
            let e = Errno.current
            fd.close()
            throw .notATerminal(path: path, errno: e)
        }
        cfmakeraw(&tio)
        tio.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        tio.c_cflag &= ~(tcflag_t(CRTSCTS) | tcflag_t(CSTOPB))
        cfsetispeed(&tio, speed)
        cfsetospeed(&tio, speed)
        guard tcsetattr(fd.rawValue, TCSANOW, &tio) == 0 else {
            let e = Errno.current
            fd.close()
            throw .configure(path: path, errno: e)
        }
        return SerialPort(path: path, descriptor: fd)
    }

    static func speedConstant(_ baud: Int) -> speed_t? {
        switch baud {
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        case 921_600: speed_t(B921600)
        default: nil
        }
    }
}

public enum SerialPortError: Error, Sendable, CustomStringConvertible {
    case unsupportedBaud(path: String, baud: Int)
    case open(path: String, errno: Errno)
    case notATerminal(path: String, errno: Errno)
    case configure(path: String, errno: Errno)
    case noRecognisableData(path: String)

    public var description: String {
        switch self {
        case .unsupportedBaud(let path, let baud):
            return "\(path): \(baud) baud is not supported; use one of \(SerialBaud.supported.map(String.init).joined(separator: ", "))"
        case .open(let path, let e) where e == .noSuchFile:
            return "\(path): no such device. Is the GPS plugged in? With the udev rules installed it appears as /dev/ridegate-gps; otherwise set gps.device to its /dev/ttyUSB* path, or for the header pins /dev/serial0 (Raspberry Pi OS) or /dev/ttyS1 (Debian's kernel)"
        case .open(let path, let e) where e == .permissionDenied:
            return "\(path): permission denied. Add the user to the 'dialout' group (sudo usermod -aG dialout $USER) or run through the systemd unit"
        case .open(let path, let e) where e == .busy:
            return "\(path): device busy; another program (gpsd, a serial console on the Pi's UART) holds it"
        case .open(let path, let e):
            return "\(path): cannot open: \(e)"
        case .notATerminal(let path, let e):
            return "\(path): not a serial device (\(e)); gps.device must name a tty"
        case .configure(let path, let e):
            return "\(path): cannot set raw mode and baud rate: \(e)"
        case .noRecognisableData(let path):
            return "\(path): no valid NMEA at any common baud rate; check the wiring (module TX to the Pi's RX) and that the receiver is powered, or set gps.baud"
        }
    }
}
