/// A whole ride's totals and its laps, each lap's totals beside the trigger that ended it. The laps tile the
/// ride: each starts where the previous one ended, so their times and distances add up to the ride's.
public struct RideSummary: Sendable {
    public struct Lap: Sendable {
        public var statistics: RideStatistics
        public var trigger: LapMark.Trigger
    }

    public var statistics: RideStatistics
    public var laps: [Lap]
    /// The points once a second (what every file's records are).
    public var records: Int

    /// Works out the totals in one pass over the ride's points (any rate: taken once a second). A lap mark ends
    /// the lap at the last point at or before it; marks outside the ride or in the same second as another are
    /// left out.
    public static func of(_ points: some Sequence<RidePoint>, laps marks: [LapMark], context: RideStatistics.Context) -> RideSummary? {
        var whole = RideStatistics.Accumulator(context: context)
        var lap = RideStatistics.Accumulator(context: context)
        var laps: [Lap] = []
        var pending = marks.sorted { $0.time < $1.time }[...]
        var seconds = OncePerSecond()
        var last: RidePoint?
        var records = 0
        for point in points {
            guard let record = seconds.take(point) else { continue }
            // Marks at or before this record end the lap at the record before it.
            while let mark = pending.first, mark.time < record.time {
                pending.removeFirst()
                guard let end = last, let statistics = lap.statistics else { continue }
                laps.append(Lap(statistics: statistics, trigger: mark.trigger))
                lap = RideStatistics.Accumulator(context: context, before: end)
            }
            whole.add(record)
            lap.add(record)
            last = record
            records += 1
        }
        guard let statistics = whole.statistics else { return nil }
        if let final = lap.statistics { laps.append(Lap(statistics: final, trigger: .end)) }
        return RideSummary(statistics: statistics, laps: laps, records: records)
    }
}

/// One point per whole second of time: the first point in each second (at 10 Hz, the fix at .0). What goes in the
/// files and into the totals, whatever rate the receiver ran at; the ride log keeps every fix.
public struct OncePerSecond: Sendable {
    private var lastSecond: Double?

    public init() {}

    public mutating func take(_ point: RidePoint) -> RidePoint? {
        let second = point.time.secondsSince1970.rounded(.down)
        guard second.isFinite, lastSecond.map({ second > $0 }) ?? true else { return nil }
        lastSecond = second
        return point
    }
}
