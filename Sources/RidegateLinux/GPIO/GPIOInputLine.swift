import CGPIOShim
import Glibc

/// One GPIO line requested as an input that reports its edges (the lap button), through libgpiod v1 or v2 behind
/// the C shim, labelled `ridegate`. Its descriptor becomes readable when an edge waits; `readEdge` takes it.
public final class GPIOInputLine: @unchecked Sendable {
    // @unchecked: the handle is touched on the event loop's thread only, and by release() after it stops.
    private var handle: OpaquePointer?
    public let chipPath: String
    public let offset: Int

    /// rg_gpio_request_edges → gpiod_line_request (v1, both edges) / gpiod_chip_request_lines (v2, edge detection
    /// both), the line pulled up when `pullUp`.
    public init(_ selector: GPIOOutputLine.Selector, activeLow: Bool, pullUp: Bool, consumer: String = "ridegate") throws(GPIOError) {
        var busyConsumer = [CChar](repeating: 0, count: 64)
        let line: OpaquePointer?
        switch selector {
        case .offset(let chip, let offset):
            line = rg_gpio_request_edges(chip, UInt32(offset), nil, consumer, activeLow ? 1 : 0, pullUp ? 1 : 0, &busyConsumer, busyConsumer.count)
        case .name(let name):
            line = rg_gpio_request_edges(nil, 0, name, consumer, activeLow ? 1 : 0, pullUp ? 1 : 0, &busyConsumer, busyConsumer.count)
        }
        guard let line else { throw GPIOError(requesting: selector, busyConsumer: busyConsumer) }
        handle = line
        chipPath = String(cString: rg_gpio_line_chip_path(line))
        offset = Int(rg_gpio_line_offset(line))
    }

    deinit { release() }

    /// The descriptor to watch (gpiod_line_event_get_fd / gpiod_line_request_get_fd).
    public var descriptor: Int32 { handle.map { rg_gpio_event_fd($0) } ?? -1 }

    /// Takes one waiting edge (the descriptor was readable): the line's logical state after it (true: active,
    /// a button pressed) and the kernel's timestamp of the edge in seconds.
    public func readEdge() throws(Errno) -> (active: Bool, seconds: Double) {
        guard let handle else { throw Errno(rawValue: EBADF) }
        var nanoseconds: UInt64 = 0
        let value = rg_gpio_read_edge(handle, &nanoseconds)
        guard value >= 0 else { throw Errno.current }
        return (value == 1, Double(nanoseconds) / 1e9)
    }

    /// Gives the line back to the kernel.
    public func release() {
        guard let h = handle else { return }
        rg_gpio_release(h)
        handle = nil
    }
}
