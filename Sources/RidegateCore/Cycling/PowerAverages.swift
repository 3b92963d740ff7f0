/// Power over the last few seconds, as a head unit shows it: 3 s and 10 s averages of the instantaneous
/// readings (time-weighted: each reading holds until the next, so an uneven notification rate does not tilt
/// the average). Readings older than the longest window are dropped.
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
        for (index, sample) in samples.enumerated() {
            let from = max(sample.at, start)
            let to = index + 1 < samples.count ? samples[index + 1].at : now
            guard to > from else { continue }
            energy += sample.watts * (to - from)
            covered += to - from
        }
        return covered > 0 ? energy / covered : samples.last?.watts
    }
}
