/// Heart-rate zone boundaries in bpm: zone 1 starts at `lowerBounds[0]`, zone N at `lowerBounds[N-1]`;
/// below zone 1 is zone 0 (resting, warm-up).
public struct HeartRateZones: Sendable, Equatable {
    public let lowerBounds: [Int]

    /// Boundaries must be strictly increasing; validated where the config is read.
    public init(lowerBounds: [Int]) {
        self.lowerBounds = lowerBounds
    }

    /// Percentages of maximum heart rate (the common 50/60/70/80/90 five-zone model).
    public static func percentOfMax(_ maxHeartRate: Int, percentages: [Double]) -> HeartRateZones {
        HeartRateZones(lowerBounds: percentages.map { Int((Double(maxHeartRate) * $0 / 100).rounded()) })
    }

    public var count: Int { lowerBounds.count }

    /// The zone a heart rate falls in, without hysteresis.
    public func zone(for bpm: Int) -> Int {
        var zone = 0
        for (index, bound) in lowerBounds.enumerated() where bpm >= bound { zone = index + 1 }
        return zone
    }
}
