/// The zone shown to the rider, with hysteresis: it changes only after heart rate has been past a boundary
/// by `marginBPM` for `dwellSeconds`, so a heart rate sitting on a boundary does not make the LED flicker.
public struct ZoneTracker: Sendable {
    public let zones: HeartRateZones
    public let marginBPM: Int
    public let dwellSeconds: Double
    public private(set) var zone: Int?
    private var candidate: (zone: Int, since: Timestamp)?
    /// Seconds spent in each zone (index 0 = below zone 1), counted between readings.
    public private(set) var secondsInZone: [Double]
    private var lastReading: Timestamp?

    public init(zones: HeartRateZones, marginBPM: Int = 2, dwellSeconds: Double = 3) {
        self.zones = zones
        self.marginBPM = marginBPM
        self.dwellSeconds = dwellSeconds
        self.secondsInZone = Array(repeating: 0, count: zones.count + 1)
    }

    /// Feeds one reading; returns the zone to show.
    @discardableResult
    public mutating func update(bpm: Int, at time: Timestamp) -> Int {
        if let last = lastReading, let z = zone, time > last {
            // Gaps (a dropped strap) are not time in a zone.
            secondsInZone[z] += min(time - last, 5)
        }
        lastReading = time
        guard let current = zone else {
            let first = zones.zone(for: bpm)
            zone = first
            return first
        }
        let target = targetZone(bpm: bpm, current: current)
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
    private func targetZone(bpm: Int, current: Int) -> Int {
        let raw = zones.zone(for: bpm)
        if raw > current {
            // Up only if clearly above the boundary of the next zone.
            var target = current
            while target < raw, bpm >= zones.lowerBounds[target] + marginBPM { target += 1 }
            return target
        }
        if raw < current {
            var target = current
            while target > raw, bpm < zones.lowerBounds[target - 1] - marginBPM { target -= 1 }
            return target
        }
        return current
    }
}
