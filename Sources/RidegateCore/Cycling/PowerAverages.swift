/// Power over the last few seconds, as a head unit shows it: 3 s and 10 s averages of the instantaneous
/// readings, time-weighted so an uneven notification rate does not tilt them. A reading is the power of the
/// pedal stroke just finished (Cycling Power Measurement's instantaneous power), so it stands for the time since
/// the reading before it: the average at a reading's arrival includes it, and a surge counts from its first
/// reading, not a reading later. Readings older than the longest window are dropped.
public struct PowerAverages: Sendable {
    public static let windows: [Double] = [3, 10]
    private var samples: [(at: Double, watts: Double)] = []

    public init() {}

    public mutating func add(watts: Double, at now: Double) {
        samples.append((now, watts))
        let horizon = now - (Self.windows.max() ?? 10)
        // Keep one reading older than the horizon: it is what held at the window's start.
        while samples.count > 1, samples[1].at <= horizon { samples.removeFirst() }
    }

    /// The time-weighted average over the last `window` seconds before `now`, or nil without readings.
    public func average(over window: Double, at now: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let start = now - window
        var energy = 0.0
        var covered = 0.0
        for index in samples.indices.dropFirst() {
            let from = max(samples[index - 1].at, start)
            let to = min(samples[index].at, now)
            guard to > from else { continue }
            energy += samples[index].watts * (to - from)
            covered += to - from
        }
        return covered > 0 ? energy / covered : samples.last?.watts
    }
}
