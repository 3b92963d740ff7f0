/// The zone shown to the rider (the LED, the payloads), with hysteresis: a reading that sits on a boundary
/// does not make it flicker, and any sustained change is followed.
///
/// A reading counts as "in" a zone until it is more than `margin` past that zone's edges. Once every reading
/// for `dwellSeconds` has been out of the shown zone, the shown zone moves: to the zone, among those the
/// readings of the last `dwellSeconds` were clearly in (past the margin of every boundary between it and the
/// shown zone), nearest the one shown. So a reading that crosses into another zone for
/// less than the dwell changes nothing; readings that leave the zone for good are followed within the dwell
/// whatever zones they cross on the way; and readings that wander over a boundary between two other zones
/// still move the shown zone, to the nearer of the two.
///
/// With `.latest`, the move is to the zone the latest reading is clearly in instead: for a 3 s power average,
/// already smoothed, whose surge a head unit shows at once (stepping through the zones between made a sprint's
/// zone show seconds late).
///
/// Time in zone is not counted here: `ZoneTime` counts it from the readings themselves, as training software
/// does, not from the zone shown.
public struct ZoneTracker: Sendable {
    /// Where the shown zone moves once the readings have been out of it for the dwell.
    public enum Target: Sendable {
        /// The zone nearest the shown one among those the dwell's readings were clearly in (heart rate).
        case nearest
        /// The zone the latest reading is clearly in (a power average).
        case latest
    }

    public let zones: ZoneBoundaries
    public let margin: Int
    public let dwellSeconds: Double
    public let target: Target
    public private(set) var zone: Int?
    /// The readings of the last `dwellSeconds`, oldest first.
    private var recent: [(at: Timestamp, value: Int)] = []
    /// When the readings last left the shown zone (nil while they are in it).
    private var awaySince: Timestamp?

    public init(zones: ZoneBoundaries, margin: Int = 2, dwellSeconds: Double = 3, target: Target = .nearest) {
        self.zones = zones
        self.margin = margin
        self.dwellSeconds = dwellSeconds
        self.target = target
    }

    /// Feeds one reading; returns the zone to show.
    @discardableResult
    public mutating func update(value: Int, at time: Timestamp) -> Int {
        if let last = recent.last, time < last.at { recent.removeAll() } // the clock stepped back: start over
        recent.append((time, value))
        while let first = recent.first, time - first.at > dwellSeconds { recent.removeFirst() }
        guard let shown = zone else {
            zone = zones.zone(for: value)
            return zones.zone(for: value)
        }
        if contains(shown, value) {
            awaySince = nil
            return shown
        }
        let since = awaySince ?? time
        awaySince = since
        guard time - since >= dwellSeconds else { return shown }
        let next: Int
        switch target {
        case .nearest:
            let visited = recent.map { clearZone($0.value, from: shown) }
            next = visited.min { abs($0 - shown) < abs($1 - shown) } ?? zones.zone(for: value)
        case .latest:
            next = clearZone(value, from: shown)
        }
        zone = next
        // The readings may already be leaving the new zone: away from it since the first of the latest run out of it.
        awaySince = nil
        for reading in recent.reversed() {
            guard !contains(next, reading.value) else { break }
            awaySince = reading.at
        }
        return next
    }

    /// The zone `value` is clearly in seen from zone `z`: boundaries it passes by less than the margin not crossed.
    private func clearZone(_ value: Int, from z: Int) -> Int {
        var target = z
        while target < zones.count, value >= zones.lowerBounds[target] + margin { target += 1 }
        while target > 0, value < zones.lowerBounds[target - 1] - margin { target -= 1 }
        return target
    }

    /// Whether `value` is in zone `z` or within `margin` of its edges.
    private func contains(_ z: Int, _ value: Int) -> Bool {
        let low = z == 0 ? Int.min : zones.lowerBounds[z - 1] - margin
        let high = z < zones.count ? zones.lowerBounds[z] + margin : Int.max
        return value >= low && value < high
    }
}
