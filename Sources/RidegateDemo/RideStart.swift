import RidegateApp
import RidegateCore
import RidegateLinux

/// When a recorded ride's second 0 is (monotonic seconds), shared by its replayed receiver and its simulated
/// sensors: once every sensor is connected and subscribed, as a head unit starts a ride with its sensors paired.
/// A machine slow to bring the links up then delays the ride instead of cutting its first seconds from the
/// sensors' readings (a replay's totals would depend on the machine's load). At the latest `patience` after
/// the first wait begins: a sensor that never connects does not hold the ride back.
final class RideStart: Sendable {
    /// Real seconds a ride waits for its sensors.
    let patience: Double
    /// Between the last link coming up and second 0: the receiver's first epochs and the sensors' first
    /// notifications then leave together.
    static let lead = 0.2

    private struct State: Sendable {
        var unconnected: Set<String>
        var origin: Double?
        var waiting: [CheckedContinuation<Double, Never>] = []
        /// Real seconds the ride has fallen behind its schedule: the receiver, held up by a loaded machine,
        /// carries on from where it is, and the sensors with it.
        var heldBack = 0.0
    }

    private let state: Locked<State>
    private let logger: Logger
    private let loop: EventLoop

    init(patience: Double = 10, loop: EventLoop, logger: Logger) {
        self.loop = loop
        state = Locked(State(unconnected: []))
        self.patience = patience
        self.logger = logger
    }

    /// A sensor the ride waits for (before the ride's first wait begins).
    func expect(_ sensor: String) {
        state.withLock { _ = $0.unconnected.insert(sensor) }
    }

    /// A sensor is connected and subscribed (a sensor that reconnects later changes nothing).
    func connected(_ sensor: String) {
        let last = state.withLock { state -> Bool in
            state.unconnected.remove(sensor) != nil && state.unconnected.isEmpty
        }
        if last { fix(SystemClock.monotonicSeconds() + Self.lead) }
    }

    /// Second 0: waits for every sensor, `patience` at most.
    func origin() async -> Double {
        if let origin = state.withLock({ $0.origin }) { return origin }
        if state.withLock({ $0.unconnected.isEmpty }) { fix(SystemClock.monotonicSeconds() + Self.lead) }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await loop.sleep(seconds: patience)
                guard !Task.isCancelled else { return }
                let missing = state.withLock { $0.origin == nil ? $0.unconnected.sorted() : [] }
                guard !missing.isEmpty else { return }
                logger.warning("the ride starts without every sensor connected", [("sensor.ids", missing.joined(separator: ",")),
                                                                                    ("waited_s", String(patience))])
                fix(SystemClock.monotonicSeconds())
            }
            let origin = await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Double? in
                    if let origin = state.origin { return origin }
                    state.waiting.append(continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
            group.cancelAll()
            return origin
        }
    }

    /// When a ride second is due on the monotonic clock: `origin` (this ride's, from `origin()`) plus the time the
    /// ride has been held back, plus the ride second at `speed`. From second 0, not from the previous tick: a few
    /// milliseconds late here and there do not add up to a slower ride.
    func due(_ rideSecond: Double, speed: Double, origin: Double) -> Double {
        origin + state.withLock { $0.heldBack } + rideSecond / speed
    }

    /// The receiver's wait for its next epoch. Held up by more than half a ride second (a loaded machine), it
    /// does not wait but moves the whole ride's schedule back by as much: sending the missed epochs in a burst
    /// would have the gateway read them late and count their distance apart from the track, and the sensors,
    /// on the same schedule, keep their readings beside the receiver's fixes.
    func receiverWaits(for rideSecond: Double, speed: Double, origin: Double) async {
        let late = SystemClock.monotonicSeconds() - due(rideSecond, speed: speed, origin: origin)
        if late > 0.5 / speed {
            state.withLock { $0.heldBack += late }
        } else {
            await loop.sleep(seconds: max(0, -late))
        }
    }

    /// A sensor's wait for its next tick, on the receiver's schedule (which only the receiver moves).
    func sensorWaits(for rideSecond: Double, speed: Double, origin: Double) async {
        await loop.sleep(seconds: max(0, due(rideSecond, speed: speed, origin: origin) - SystemClock.monotonicSeconds()))
    }

    private func fix(_ origin: Double) {
        let waiting = state.withLock { state -> [CheckedContinuation<Double, Never>] in
            guard state.origin == nil else { return [] }
            state.origin = origin
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: origin) }
    }
}
