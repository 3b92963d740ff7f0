import RidegateApp
import RidegateCore
import RidegateLinux

/// A replayed ride's schedule and its clock, shared by its receiver and its simulated sensors.
///
/// Second 0 comes once every sensor is connected and subscribed, as a head unit starts a ride with its sensors
/// paired: a machine slow to bring the links up delays the ride instead of cutting its first seconds from the
/// sensors' readings. At the latest `patience` after the first wait begins: a sensor that never connects does
/// not hold the ride back.
///
/// The demo's clock is the ride's (`ReplayPace`): it never reads later than the earliest ride second a part of
/// the replay (the receiver, each sensor) is still to send, and it stands still while the ride is held back. A
/// machine that holds the demo up (a loaded CPU, a slow disk) then slows the ride without changing it: a fix
/// read late is dated when it was sent, and a reading is as fresh beside it as it was when ridden, so a
/// replay's totals do not depend on the machine's load.
final class RideSchedule: ReplayPace {
    /// Real seconds a ride waits for its sensors: long enough for a loaded machine to bring the links up (each a GATT
    /// discovery on the one loop), short enough that a sensor that never connects only delays the demo.
    let patience: Double
    /// Between the last link coming up and second 0: the receiver's first epochs and the sensors' first
    /// notifications then leave together.
    static let lead = 0.2

    private struct State: Sendable {
        var unconnected: Set<String>
        var origin: Double?
        var waiting: [CheckedContinuation<Double, Never>] = []
        /// Real seconds the ride has fallen behind its schedule: a part held up by a loaded machine carries on
        /// from where it is, and the others with it.
        var heldBack = 0.0
        /// The ride second each part of the replay sends next (a part that has ended is not here).
        var next: [String: Double] = [:]
        /// What the clock last read (seconds since its origin): it never goes back.
        var clockRead = -Double.infinity
    }

    private let state: Locked<State>
    private let logger: Logger
    private let loop: EventLoop

    init(patience: Double = 30, loop: EventLoop, logger: Logger) {
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

    /// A part of the replay (the receiver, a sensor) that sends on this schedule: until it leaves, the clock
    /// does not pass the ride second it is to send next (second 0 for now).
    func joins(_ part: String) {
        sends(part, next: 0)
    }

    /// The ride second a part sends next: the clock does not pass it until the part moves on or leaves.
    func sends(_ part: String, next rideSecond: Double) {
        state.withLock { $0.next[part] = rideSecond }
    }

    /// A part that sends nothing more: the clock no longer waits for it.
    func leaves(_ part: String) {
        state.withLock { _ = $0.next.removeValue(forKey: part) }
    }

    /// A part's wait for its next ride second. Held up by more than half a ride second (a loaded machine), it
    /// does not wait but moves the whole ride's schedule back by as much: sending the missed seconds in a burst
    /// would have the receiver's fixes and the sensors' readings meet out of step, and the others, on the same
    /// schedule, keep theirs beside it.
    func waits(_ part: String, for rideSecond: Double, speed: Double, origin: Double) async {
        sends(part, next: rideSecond)
        let late = SystemClock.monotonicSeconds() - due(rideSecond, speed: speed, origin: origin)
        if late > 0.5 / speed {
            state.withLock { $0.heldBack += late }
        } else {
            await loop.sleep(seconds: max(0, -late))
        }
    }

    /// The ride's clock: `rate` seconds a second from `clockOrigin`, less the time the ride was held back, and
    /// never past the earliest second a part is still to send (ride second r reads as the clock's reading at
    /// second 0 plus r, `rate` being the ride's speed). Before second 0 it runs freely.
    func elapsed(at now: Double, since clockOrigin: Double, rate: Double) -> Double {
        state.withLock { state in
            var elapsed = (now - clockOrigin - state.heldBack) * rate
            if let origin = state.origin, let earliest = state.next.values.min() {
                elapsed = min(elapsed, (origin - clockOrigin) * rate + earliest)
            }
            state.clockRead = max(state.clockRead, elapsed)
            return state.clockRead
        }
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
