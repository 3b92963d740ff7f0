/// A ride's power and cadence totals, fed one reading at a time (pure: every time is passed in):
/// average and maximum power, normalized power, work, average cadence with and without zeros.
///
/// Normalized power (Coggan): the 30 s rolling average of power, sampled each second, raised to the fourth
/// power, averaged, and the fourth root taken. It weighs hard efforts as the body feels them; it needs 30 s
/// of riding before it has a value.
public struct RidePowerTotals: Sendable {
    /// Gaps longer than this (a sensor out of range) are not counted as riding at the last power.
    public static let maximumGap = 5.0

    public private(set) var maximumWatts = 0
    public private(set) var joules = 0.0
    public private(set) var seconds = 0.0
    private var cadenceRevolutions = 0.0
    private var cadenceSeconds = 0.0
    private var pedallingSeconds = 0.0
    private var last: (at: Double, watts: Double, cadence: Double?)?
    private var secondValues: [Double] = []
    private var nextSecond: Double?
    private var fourthPowerSum = 0.0
    private var rollingCount = 0

    public init() {}

    /// Feeds a reading: power in watts, and cadence in rpm when the sensor gives it, at `now` (seconds).
    public mutating func add(watts: Int, cadenceRPM: Double?, at now: Double, time: Timestamp) {
        maximumWatts = max(maximumWatts, watts)
        if let last, now > last.at {
            let dt = min(now - last.at, Self.maximumGap)
            joules += last.watts * dt
            seconds += dt
            if let cadence = last.cadence {
                cadenceRevolutions += cadence / 60 * dt
                cadenceSeconds += dt
                if cadence > 0 { pedallingSeconds += dt }
            }
        }
        advanceSeconds(to: now)
        last = (now, Double(watts), cadenceRPM)
    }

    /// Each whole second since the last reading takes the power that held then, into the 30 s rolling window.
    private mutating func advanceSeconds(to now: Double) {
        guard let held = last else {
            nextSecond = now + 1
            return
        }
        while let second = nextSecond, second <= now {
            // After a long gap only the last window's worth matters.
            let value = now - second > Self.maximumGap ? 0 : held.watts
            secondValues.append(value)
            if secondValues.count > 30 { secondValues.removeFirst() }
            if secondValues.count == 30 {
                let rolling = secondValues.reduce(0, +) / 30
                fourthPowerSum += rolling * rolling * rolling * rolling
                rollingCount += 1
            }
            nextSecond = second + 1
        }
    }

    public var averageWatts: Double? { seconds > 0 ? joules / seconds : nil }
    public var workKilojoules: Double { joules / 1000 }

    public var normalizedWatts: Double? {
        guard rollingCount > 0 else { return nil }
        return (fourthPowerSum / Double(rollingCount)).squareRoot().squareRoot()
    }

    /// Average cadence over the time a cadence was known, stops at the pedals (0 rpm) included.
    public var averageCadenceRPM: Double? { cadenceSeconds > 0 ? cadenceRevolutions / cadenceSeconds * 60 : nil }

    /// Average cadence while pedalling: coasting left out (what most head units show).
    public var averagePedallingCadenceRPM: Double? { pedallingSeconds > 0 ? cadenceRevolutions / pedallingSeconds * 60 : nil }
}
