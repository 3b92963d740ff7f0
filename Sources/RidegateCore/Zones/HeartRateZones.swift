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

    /// Karvonen: percentages of heart-rate reserve, `resting + p × (max − resting)`.
    public static func percentOfReserve(max maxHeartRate: Int, resting: Int, percentages: [Double]) -> HeartRateZones {
        let reserve = Double(maxHeartRate - resting)
        return HeartRateZones(lowerBounds: percentages.map { Int((Double(resting) + reserve * $0 / 100).rounded()) })
    }

    /// Joe Friel's seven zones from lactate-threshold heart rate: 1 (< 85 %), 2 (85–89), 3 (90–94),
    /// 4 (95–99), 5a (100–102), 5b (103–106), 5c (> 106).
    public static func frielSeven(lactateThreshold lthr: Int) -> HeartRateZones {
        fromThreshold(lthr, [85, 90, 95, 100, 103, 106])
    }

    /// A five-zone variant from lactate-threshold heart rate: 1 (< 81 %), 2 (81–89), 3 (90–93), 4 (94–99),
    /// 5 (≥ 100).
    public static func thresholdFive(lactateThreshold lthr: Int) -> HeartRateZones {
        fromThreshold(lthr, [81, 90, 94, 100])
    }

    /// Zone 1 starts at 1 bpm: threshold models have no "below zone 1".
    private static func fromThreshold(_ lthr: Int, _ percentages: [Double]) -> HeartRateZones {
        HeartRateZones(lowerBounds: [1] + percentages.map { Int((Double(lthr) * $0 / 100).rounded()) })
    }

    /// Nil unless the bounds strictly increase: what config validation checks.
    public var isValid: Bool {
        !lowerBounds.isEmpty && zip(lowerBounds, lowerBounds.dropFirst()).allSatisfy { $0 < $1 }
    }

    public var count: Int { lowerBounds.count }

    /// The zone a heart rate falls in, without hysteresis.
    public func zone(for bpm: Int) -> Int {
        var zone = 0
        for (index, bound) in lowerBounds.enumerated() where bpm >= bound { zone = index + 1 }
        return zone
    }
}
