/// A whole ride's totals, its laps (each lap's totals beside the trigger that ended it), and where its timer
/// stopped and started (auto-pause, by `MotionRule`). The laps tile the ride: each starts where the previous one
/// ended, so their times and distances add up to the ride's. Built in one pass over the ride's points (any rate:
/// taken once a second), which a file writer then reads again.
public struct RideSummary: Sendable {
    public struct Lap: Sendable {
        public var statistics: RideStatistics
        public var trigger: LapMark.Trigger
    }

    /// The timer starting (the ride moves) or stopping (it stands, or a gap).
    public struct TimerEvent: Sendable, Equatable {
        public var time: Timestamp
        public var running: Bool
    }

    public var statistics: RideStatistics
    public var laps: [Lap]
    public var timerEvents: [TimerEvent]
    /// The points once a second (what every file's records are).
    public var records: Int

    public static func of(_ points: some Sequence<RidePoint>, laps marks: [LapMark], context: RideStatistics.Context) -> RideSummary? {
        var builder = Builder(laps: marks, context: context)
        for point in points { builder.add(point) }
        return builder.finish()
    }

    /// Takes the points one at a time. A lap mark ends the lap at the last point at or before it; marks after the
    /// ride are left out, and so is a second mark in the same second.
    public struct Builder: Sendable {
        let context: RideStatistics.Context
        private var pending: ArraySlice<LapMark>
        private var whole: RideStatistics.Accumulator
        private var lap: RideStatistics.Accumulator
        private var laps: [Lap] = []
        private var seconds = OncePerSecond()
        private var last: RidePoint?
        private var records = 0
        private var timerEvents: [TimerEvent] = []
        private var running = false

        public init(laps marks: [LapMark], context: RideStatistics.Context) {
            self.context = context
            pending = marks.sorted { $0.time < $1.time }[...]
            whole = RideStatistics.Accumulator(context: context)
            lap = RideStatistics.Accumulator(context: context)
        }

        public mutating func add(_ point: RidePoint) {
            guard let record = seconds.take(point) else { return }
            while let mark = pending.first, mark.time < record.time {
                pending.removeFirst()
                guard let end = last, let statistics = lap.statistics else { continue }
                laps.append(Lap(statistics: statistics, trigger: mark.trigger))
                lap = RideStatistics.Accumulator(context: context, before: end)
            }
            // The timer runs over the second up to a moving record, unless a gap came first.
            if let previous = last {
                let counted = record.moving && record.time - previous.time <= RideStatistics.maximumGap
                if counted != running {
                    timerEvents.append(TimerEvent(time: previous.time, running: counted))
                    running = counted
                }
            }
            whole.add(record)
            lap.add(record)
            last = record
            records += 1
        }

        public func finish() -> RideSummary? {
            guard let statistics = whole.statistics else { return nil }
            var laps = self.laps
            if let final = lap.statistics { laps.append(Lap(statistics: final, trigger: .end)) }
            var events = timerEvents
            if running, let end = last { events.append(TimerEvent(time: end.time, running: false)) }
            return RideSummary(statistics: statistics, laps: laps, timerEvents: events, records: records)
        }
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
