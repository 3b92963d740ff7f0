import RidegateCore
import RidegateLinux

/// Where LED levels go: a GPIO line, or the console when there is no GPIO chip (the demo).
public protocol LEDOutput: Sendable {
    /// Lights the lines whose bits are set (bit 0 is the first line) and darkens the others.
    func set(_ lines: UInt8)
    /// Told once per signal change, before its pattern starts; the console shows it as a line.
    func willShow(_ signal: LEDSignal, pattern: BlinkPattern)
    func release()
    /// Whether the pattern's edges matter here (a lamp); the console shows only changes of signal, so the
    /// sink keeps no timer for it.
    var showsEdges: Bool { get }
}

/// Drives an LED through the pure blink patterns with one timer of the event loop that fires only at the
/// next edge of the pattern: a steady LED costs no wakeups at all.
public final class LEDSink: EffectSink, Sendable {
    private let output: any LEDOutput
    private let layout: LEDLayout
    private struct State {
        var pattern = BlinkPattern.off
        var elapsed = 0
        var stopped = false
        var timer: DeferredWork?
        /// Which pattern a timer belongs to: one set for an older pattern does nothing.
        var generation = 0
    }
    private let state = Locked(State())
    /// Times the pattern's edges.
    private let loop: EventLoop

    public init(output: any LEDOutput, layout: LEDLayout = .single, loop: EventLoop) {
        self.loop = loop
        self.output = output
        self.layout = layout
    }

    public func apply(_ effect: Effect) {
        guard case .showOnLED(let signal) = effect else { return }
        state.withLock { s in
            guard !s.stopped else { return }
            s.pattern = layout.pattern(for: signal)
            output.willShow(signal, pattern: s.pattern)
            s.elapsed = 0
            output.set(s.pattern.lines(atMilliseconds: 0))
            scheduleNextEdge(&s)
        }
    }

    /// With the state held: the timer for the pattern's next edge, in place of the one before.
    private func scheduleNextEdge(_ s: inout State) {
        s.timer?.cancel()
        s.timer = nil
        s.generation += 1
        guard output.showsEdges, let wait = s.pattern.millisecondsToNextEdge(after: s.elapsed) else { return }
        let generation = s.generation
        s.timer = loop.execute(after: Double(wait) / 1000) { [weak self] in self?.edge(of: generation, after: wait) }
    }

    private func edge(of generation: Int, after wait: Int) {
        state.withLock { s in
            guard !s.stopped, s.generation == generation else { return }
            s.elapsed += wait
            output.set(s.pattern.lines(atMilliseconds: s.elapsed))
            scheduleNextEdge(&s)
        }
    }

    /// LED off and the line released; part of the orderly shutdown.
    public func shutdown() async {
        state.withLock { s in
            s.stopped = true
            s.timer?.cancel()
            s.timer = nil
            output.set(0)
            output.release()
        }
    }
}

/// Real LEDs on GPIO lines: one, three (red, green, blue), or one per zone.
public struct GPIOLEDOutput: LEDOutput {
    let lines: [GPIOOutputLine]
    let logger: Logger

    public init(lines: [GPIOOutputLine], logger: Logger) {
        self.lines = lines
        self.logger = logger
    }

    public var showsEdges: Bool { true }

    public func set(_ lit: UInt8) {
        for (index, line) in lines.enumerated() {
            do {
                try line.set(lit & (1 << UInt8(index)) != 0)
            } catch {
                logger.error("cannot set an LED line", [("led.chip", line.chipPath), ("led.line", String(line.offset)), ("led.error", "\(error)")])
            }
        }
    }

    public func willShow(_ signal: LEDSignal, pattern: BlinkPattern) {
        logger.debug("LED pattern", [("led.signal", signal.description)])
    }

    public func release() { lines.forEach { $0.release() } }
}

/// The demo's LED: one log line per change, saying what a real LED would do.
public struct ConsoleLEDOutput: LEDOutput {
    let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    public func set(_ lines: UInt8) {}

    public var showsEdges: Bool { false }

    public func willShow(_ signal: LEDSignal, pattern: BlinkPattern) {
        logger.notice("LED", [("led.signal", signal.description), ("led.pattern", Self.describe(pattern))])
    }

    public func release() {
        logger.notice("LED", [("led.signal", "off")])
    }

    /// `▮▯▮▯▯▯▯` at 250 ms per character: the pattern as a rider would see it.
    static func describe(_ pattern: BlinkPattern) -> String {
        guard pattern.periodMilliseconds > 0 else { return "dark" }
        var text = ""
        var t = 0
        while t < pattern.periodMilliseconds, text.count < 40 {
            text.append(pattern.isOn(atMilliseconds: t) ? "▮" : "▯")
            t += 100
        }
        return text
    }
}
