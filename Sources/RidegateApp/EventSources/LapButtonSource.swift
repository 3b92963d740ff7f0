import RidegateCore
import RidegateLinux

/// The lap button (`[button]`): a GPIO input's edges, read on the event loop as they come (no polling), made
/// into presses (`ButtonPresses`: its bounce ignored, short or long by how long it was held).
struct LapButtonSource: EventSource {
    let name = "lap button"
    let button: GatewayConfig.Button
    let clock: SystemClock
    let logger: Logger
    /// Watches the line's edges.
    let loop: EventLoop

    func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        let selector: GPIOOutputLine.Selector = button.lineName.map { .name($0) } ?? .offset(chip: button.chip, offset: button.line ?? 0)
        let line: GPIOInputLine
        do {
            line = try GPIOInputLine(selector, activeLow: button.activeLow, pullUp: button.activeLow)
        } catch {
            logger.error("cannot use the lap button; laps come from ride.auto_lap_km only", [("error", error.description)])
            return
        }
        defer { line.release() }
        logger.info("lap button ready", [("button.chip", line.chipPath), ("button.line", String(line.offset))])
        let presses = Locked(ButtonPresses(longPress: button.longPressSeconds))
        let logger = logger, clock = clock
        let ended = Locked<CheckedContinuation<Void, Never>?>(nil)
        // Taken once, whoever ends the wait first (a watch that fails, or shutdown).
        let end: @Sendable () -> Void = {
            ended.withLock { value -> CheckedContinuation<Void, Never>? in
                defer { value = nil }; return value
            }?.resume()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                ended.withLock { $0 = continuation }
                do throws(Errno) {
                    try loop.watch(line.descriptor) { _ in
                        do throws(Errno) {
                            let edge = try line.readEdge()
                            if let press = presses.withLock({ $0.edge(pressed: edge.active, at: edge.seconds) }) {
                                logger.info("lap button pressed", [("button.press", press.rawValue)])
                                emit(.lapButton(press, at: clock.now()))
                            }
                        } catch {
                            logger.warning("cannot read the lap button", [("error", "\(error)")])
                        }
                    }
                } catch {
                    logger.error("cannot watch the lap button", [("error", "\(error)")])
                    end()
                }
            }
        } onCancel: {
            loop.execute {
                loop.unwatch(line.descriptor)
                end()
            }
        }
    }
}
