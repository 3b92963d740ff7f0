/// The zone shown to the rider, with hysteresis: it changes only after the reading (heart rate in bpm, or
/// power in watts) has been past a boundary by `margin` for `dwellSeconds`, so a reading sitting on a
/// boundary does not make the LED flicker.
public struct ZoneTracker: Sendable {
    public let zones: ZoneBoundaries
    public let margin: Int
    public let dwellSeconds: Double
    public private(set) var zone: Int?
    private var candidate: (zone: Int, since: Timestamp)?
    /// Seconds spent in each zone (index 0 = below zone 1), counted between readings.
    public private(set) var secondsInZone: [Double]
    private var lastReading: Timestamp?

    public init(zones: ZoneBoundaries, margin: Int = 2, dwellSeconds: Double = 3) {
        self.zones = zones
        self.margin = margin
        self.dwellSeconds = dwellSeconds
        self.secondsInZone = Array(repeating: 0, count: zones.count + 1)
    }

    /// Feeds one reading; returns the zone to show.
    @discardableResult
    public mutating func update(value: Int, at time: Timestamp) -> Int {
        if let last = lastReading, let z = zone, time > last {
            // Gaps (a dropped strap) are not time in a zone.
            secondsInZone[z] += min(time - last, 5)
        }
        lastReading = time
        guard let current = zone else {
            let first = zones.zone(for: value)
            zone = first
            return first
        }
        let target = targetZone(value: value, current: current)
        if target == current {
            candidate = nil
        } else if let c = candidate, c.zone == target {
            if time - c.since >= dwellSeconds {
                zone = target
                candidate = nil
            }
        } else {
            candidate = (target, time)
            if dwellSeconds <= 0 {
                zone = target
                candidate = nil
            }
        }
        return zone ?? target
    }

    /// The zone the reading points to once the margin is applied around the current zone's edges.
    private func targetZone(value: Int, current: Int) -> Int {
        let raw = zones.zone(for: value)
        if raw > current {
            // Up only if clearly above the boundary of the next zone.
            var target = current
            while target < raw, value >= zones.lowerBounds[target] + margin { target += 1 }
            return target
        }
        if raw < current {
            var target = current
            while target > raw, value < zones.lowerBounds[target - 1] - margin { target -= 1 }
            return target
        }
        return current
    }
}
