import CGPIOShim
import Glibc

/// One GPIO line requested as an output through libgpiod (v1 or v2, behind the C shim), labelled
/// `ridegate` so `gpioinfo` shows who holds it.
public final class GPIOOutputLine: @unchecked Sendable {
    // @unchecked: the handle is only touched by the LED driver's single queue, and by release() after it stops.
    private var handle: OpaquePointer?
    public let chipPath: String
    public let offset: Int

    public enum Selector: Sendable, Equatable {
        case offset(chip: String, offset: Int)
        case name(String)
    }

    /// rg_gpio_request_output → gpiod_line_request_output (v1) / gpiod_chip_request_lines (v2).
    public init(_ selector: Selector, activeLow: Bool, consumer: String = "ridegate") throws(GPIOError) {
        var busyConsumer = [CChar](repeating: 0, count: 64)
        let line: OpaquePointer?
        switch selector {
        case .offset(let chip, let offset):
            line = rg_gpio_request_output(chip, UInt32(offset), nil, consumer, activeLow ? 1 : 0, 0, &busyConsumer, busyConsumer.count)
        case .name(let name):
            line = rg_gpio_request_output(nil, 0, name, consumer, activeLow ? 1 : 0, 0, &busyConsumer, busyConsumer.count)
        }
        guard let line else { throw GPIOError(requesting: selector, busyConsumer: busyConsumer) }
        handle = line
        chipPath = String(cString: rg_gpio_line_chip_path(line))
        offset = Int(rg_gpio_line_offset(line))
    }

    deinit { release() }

    /// gpiod_line_set_value (v1) / gpiod_line_request_set_value (v2).
    public func set(_ on: Bool) throws(Errno) {
        guard let handle else { return }
        if rg_gpio_set_value(handle, on ? 1 : 0) != 0 { throw Errno.current }
    }

    /// Drives the line low and gives it back to the kernel.
    public func release() {
        guard let h = handle else { return }
        _ = rg_gpio_set_value(h, 0)
        rg_gpio_release(h)
        handle = nil
    }

    public static var libraryDescription: String {
        "libgpiod \(String(cString: rg_gpio_library_version())) (v\(rg_gpio_api_major()) API)"
    }
}

public struct GPIOError: Error, Sendable, CustomStringConvertible {
    public var selector: GPIOOutputLine.Selector
    public var errno: Errno
    public var busyConsumer: String?

    public init(selector: GPIOOutputLine.Selector, errno: Errno, busyConsumer: String?) {
        self.selector = selector
        self.errno = errno
        self.busyConsumer = busyConsumer
    }

    /// A request the shim refused (errno set), with who holds the line when it is busy (the shim's buffer).
    init(requesting selector: GPIOOutputLine.Selector, busyConsumer buffer: [CChar]) {
        let holder = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.init(selector: selector, errno: .current, busyConsumer: holder.isEmpty ? nil : holder)
    }

    public var description: String {
        let what: String
        switch selector {
        case .offset(let chip, let offset): what = "GPIO line \(offset) on \(chip)"
        case .name(let name): what = "GPIO line \"\(name)\""
        }
        switch errno.rawValue {
        case ENOENT:
            if case .name = selector { return "\(what): no GPIO chip has a line by that name; list them with `gpioinfo`" }
            return "\(what): no such GPIO chip or line; list them with `gpiodetect` and `gpioinfo`"
        case EACCES, EPERM:
            return "\(what): permission denied. Add the user to the 'gpio' group (the udev rules in udev/ give /dev/gpiochip* to it) or run through the systemd unit"
        case EBUSY:
            return "\(what): busy, held by \"\(busyConsumer ?? "another program")\"; stop it or pick another line"
        case EINVAL:
            return "\(what): the chip has no line at that offset; check `gpioinfo`"
        default:
            return "\(what): \(errno)"
        }
    }
}
