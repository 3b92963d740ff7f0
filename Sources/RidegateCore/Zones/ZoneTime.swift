/// Seconds in each zone (index 0 = below zone 1), counted from the readings: the time from one reading to the
/// next goes to the zone of the first one's value. Gaps longer than `maximumGap` (a strap out of range) count
/// only that long.
public struct ZoneTime: Sendable {
    public let zones: ZoneBoundaries
    public private(set) var seconds: [Double]
    public static let maximumGap = 5.0
    private var last: (value: Int, at: Double)?

    public init(zones: ZoneBoundaries) {
        self.zones = zones
        seconds = Array(repeating: 0, count: zones.count + 1)
    }

    /// A reading at `at` seconds (any steady clock: GPS time or monotonic).
    public mutating func add(value: Int, at: Double) {
        if let last, at > last.at {
            seconds[zones.zone(for: last.value)] += min(at - last.at, Self.maximumGap)
        }
        if last == nil || at >= (last?.at ?? at) { last = (value, at) }
    }

    /// `duration` seconds in the zone of `value` (a record that stands for that long).
    public mutating func add(value: Int, seconds duration: Double) {
        seconds[zones.zone(for: value)] += duration
    }
}
