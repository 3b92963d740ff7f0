/// Moving or stopped: the one rule behind auto-pause, moving time and a file's timer time.
///
/// Where a speed is known (GPS speed over ground, positions, or a wheel sensor) the bike moves at
/// `autoPauseSpeed` or faster. Where none is (an indoor trainer without a speed sensor), it moves while the
/// rider pedals: cadence or power above zero.
public struct MotionRule: Sendable, Equatable {
    public let autoPauseSpeed: Double

    public init(autoPauseSpeed: Double = 1.0) {
        self.autoPauseSpeed = autoPauseSpeed
    }

    public func isMoving(speed: Double?, cadence: Double?, power: Int?) -> Bool {
        if let speed, speed.isFinite { return speed >= autoPauseSpeed }
        return (cadence ?? 0) > 0 || (power ?? 0) > 0
    }
}
