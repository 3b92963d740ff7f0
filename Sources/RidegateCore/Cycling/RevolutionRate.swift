/// Revolutions per second between two readings of a cumulative counter, the way a bike computer derives
/// cadence (crank) and wheel speed (wheel) from CSC and Cycling Power measurements.
///
/// Both the counter (UINT32 wheel, UINT16 crank) and the event time (UINT16 ticks: 64 s at 1/1024 s, 32 s
/// at 1/2048 s) wrap; differences are taken modulo their width, so a wrap between two readings is just
/// another step. A counter that goes backwards (the sensor was reset, its battery changed) shows up as a
/// huge step: anything faster than `maximumRevolutionsPerSecond` is taken for such a restart, never a spike.
public enum RevolutionRate {
    /// A crank turning 250 times a minute.
    public static let maximumCrankRevolutionsPerSecond = 250.0 / 60
    /// A 2.1 m wheel at about 190 km/h.
    public static let maximumWheelRevolutionsPerSecond = 25.0

    public enum Step: Sendable, Equatable {
        /// Revolutions per second over the step (0 when the time moved and the counter did not).
        case rate(Double)
        /// The event time did not advance: no new revolution since the last reading.
        case noNewEvent
        /// Implausibly fast: the counter was reset (or the reading is garbage). Start over from this one.
        case restart
    }

    public static func step(from previous: RevolutionData, to current: RevolutionData, maximumRevolutionsPerSecond: Double) -> Step {
        let ticks = current.eventTime &- previous.eventTime
        guard ticks > 0 else { return .noNewEvent }
        let rate = Double(revolutions(from: previous, to: current)) / (Double(ticks) / current.ticksPerSecond)
        return rate <= maximumRevolutionsPerSecond ? .rate(rate) : .restart
    }

    /// Revolutions counted between two readings, modulo the counter's width.
    public static func revolutions(from previous: RevolutionData, to current: RevolutionData) -> UInt32 {
        current.counterBits >= 32
            ? current.revolutions &- previous.revolutions
            : UInt32(UInt16(truncatingIfNeeded: current.revolutions) &- UInt16(truncatingIfNeeded: previous.revolutions))
    }

    /// Seconds of event time between two readings, modulo the 16-bit event time.
    public static func seconds(from previous: RevolutionData, to current: RevolutionData) -> Double {
        Double(current.eventTime &- previous.eventTime) / current.ticksPerSecond
    }

    /// Cadence in revolutions per minute, or nil when there is no new value (see `Step`).
    public static func cadenceRPM(from previous: RevolutionData, to current: RevolutionData) -> Double? {
        guard case .rate(let rate) = step(from: previous, to: current, maximumRevolutionsPerSecond: maximumCrankRevolutionsPerSecond) else {
            return nil
        }
        return rate * 60
    }

    /// Wheel speed in m/s for a wheel of `circumferenceMillimetres`, or nil when there is no new value.
    public static func wheelSpeed(from previous: RevolutionData, to current: RevolutionData, circumferenceMillimetres: Double) -> Double? {
        guard case .rate(let rate) = step(from: previous, to: current, maximumRevolutionsPerSecond: maximumWheelRevolutionsPerSecond) else {
            return nil
        }
        return rate * circumferenceMillimetres / 1000
    }
}
