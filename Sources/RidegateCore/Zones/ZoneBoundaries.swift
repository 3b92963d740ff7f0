/// Zone boundaries in the reading's unit (bpm for heart rate, watts for power): zone 1 starts at
/// `lowerBounds[0]`, zone N at `lowerBounds[N-1]`; below zone 1 is zone 0 (resting, warm-up, coasting).
public struct ZoneBoundaries: Sendable, Equatable {
    public let lowerBounds: [Int]

    /// Boundaries must be strictly increasing; validated where the config is read.
    public init(lowerBounds: [Int]) {
        self.lowerBounds = lowerBounds
    }

    /// Percentages of maximum heart rate (the common 50/60/70/80/90 five-zone model).
    public static func percentOfMax(_ maxHeartRate: Int, percentages: [Double]) -> ZoneBoundaries {
        ZoneBoundaries(lowerBounds: percentages.map { Int((Double(maxHeartRate) * $0 / 100).rounded()) })
    }

    /// Karvonen: percentages of heart-rate reserve, `resting + p × (max − resting)`.
    public static func percentOfReserve(max maxHeartRate: Int, resting: Int, percentages: [Double]) -> ZoneBoundaries {
        let reserve = Double(maxHeartRate - resting)
        return ZoneBoundaries(lowerBounds: percentages.map { Int((Double(resting) + reserve * $0 / 100).rounded()) })
    }

    /// Joe Friel's seven zones from lactate-threshold heart rate: 1 (< 85 %), 2 (85–89), 3 (90–94),
    /// 4 (95–99), 5a (100–102), 5b (103–106), 5c (> 106).
    public static func frielSeven(lactateThreshold lthr: Int) -> ZoneBoundaries {
        fromThreshold(lthr, [85, 90, 95, 100, 103, 106])
    }

    /// A five-zone variant from lactate-threshold heart rate: 1 (< 81 %), 2 (81–89), 3 (90–93), 4 (94–99),
    /// 5 (≥ 100).
    public static func thresholdFive(lactateThreshold lthr: Int) -> ZoneBoundaries {
        fromThreshold(lthr, [81, 90, 94, 100])
    }

    /// Zone 1 starts at 1 bpm: threshold models have no "below zone 1".
    private static func fromThreshold(_ lthr: Int, _ percentages: [Double]) -> ZoneBoundaries {
        ZoneBoundaries(lowerBounds: [1] + percentages.map { Int((Double(lthr) * $0 / 100).rounded()) })
    }

    /// Nil unless the bounds strictly increase: what config validation checks.
    public var isValid: Bool {
        !lowerBounds.isEmpty && zip(lowerBounds, lowerBounds.dropFirst()).allSatisfy { $0 < $1 }
    }

    public var count: Int { lowerBounds.count }

    /// Andrew Coggan's seven power levels from functional threshold power: 1 active recovery (< 56 %),
    /// 2 endurance (56–75), 3 tempo (76–90), 4 threshold (91–105), 5 VO2max (106–120), 6 anaerobic
    /// (121–150), 7 neuromuscular (> 150). `percentages` are the lower bounds of zones 2…7; zone 1 starts at
    /// 1 W, so only coasting (0 W) is below it.
    public static func power(ftp: Int, percentages: [Double] = [56, 76, 91, 106, 121, 151]) -> ZoneBoundaries {
        ZoneBoundaries(lowerBounds: [1] + percentages.map { Int((Double(ftp) * $0 / 100).rounded()) })
    }

    /// The zone a reading falls in, without hysteresis.
    public func zone(for value: Int) -> Int {
        var zone = 0
        for (index, bound) in lowerBounds.enumerated() where value >= bound { zone = index + 1 }
        return zone
    }
}
