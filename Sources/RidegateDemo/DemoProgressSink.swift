import RidegateApp
import RidegateCore
import RidegateLinux

/// The demo's live line on stdout: moving time, distance, speed, heart rate and zone, power, every few
/// seconds of wall time (whole lines, so it reads the same in a terminal, beside the log, and in a pipe).
/// It sees the same payloads a subscriber does, through `WatchState`.
public final class DemoProgressSink: EffectSink, @unchecked Sendable {
    // @unchecked: `state` and `lastLine` are touched only in `apply`, which runs on the pipeline's one consumer.
    private var state = WatchState()
    private let screen: WatchScreen
    private let interval: Double
    private let write: @Sendable (String) -> Void
    private var lastLine: Double?

    public init(units: DisplayUnits, interval: Double = 5, write: @escaping @Sendable (String) -> Void) {
        screen = WatchScreen(units: units, deviceID: "", broker: "", localTimeOfDay: LocalTime.secondsSinceMidnight)
        self.interval = interval
        self.write = write
    }

    public func apply(_ effect: Effect) {
        guard case .publish(let publication) = effect, !publication.absolute else { return }
        state.receive(topic: publication.topic, payload: publication.payload)
        let now = SystemClock.monotonicSeconds()
        guard publication.topic == Topic.gps.name, lastLine.map({ now - $0 >= interval }) ?? true,
              state["ride"] != nil else { return }
        lastLine = now
        write("riding: " + screen.compactLine(state))
    }

    public func shutdown() async {}
}
