import RidegateCore
import Testing

@Suite struct ZoneTrackerTests {
    let zones = ZoneBoundaries.percentOfMax(190, percentages: [50, 60, 70, 80, 90]) // 95 114 133 152 171

    @Test("Percent-of-max boundaries and raw zones")
    func boundaries() {
        #expect(zones.lowerBounds == [95, 114, 133, 152, 171])
        #expect(zones.zone(for: 94) == 0)
        #expect(zones.zone(for: 95) == 1)
        #expect(zones.zone(for: 151) == 3)
        #expect(zones.zone(for: 200) == 5)
    }

    func t(_ s: Double) -> Timestamp { Timestamp(secondsSince1970: 1_000_000 + s) }

    @Test("At every boundary: no change inside the margin, change only after the dwell time", arguments: [1, 2, 3, 4])
    func hysteresisUp(zone: Int) {
        var tracker = ZoneTracker(zones: zones, margin: 2, dwellSeconds: 3)
        let boundary = zones.lowerBounds[zone] // the start of zone+1
        tracker.update(value: boundary - 5, at: t(0))
        #expect(tracker.zone == zone)
        // Sitting on the boundary, within the margin: never moves, however long.
        for s in 1...20 { tracker.update(value: boundary + (s % 2), at: t(Double(s))) }
        #expect(tracker.zone == zone)
        // Clearly above: still the old zone before the dwell time, the new one after.
        tracker.update(value: boundary + 2, at: t(30))
        tracker.update(value: boundary + 3, at: t(32))
        #expect(tracker.zone == zone)
        tracker.update(value: boundary + 3, at: t(33))
        #expect(tracker.zone == zone + 1)
        // And down again only below the boundary minus the margin, after the dwell.
        tracker.update(value: boundary - 2, at: t(40))
        tracker.update(value: boundary - 2, at: t(50))
        #expect(tracker.zone == zone + 1)
        tracker.update(value: boundary - 3, at: t(51))
        tracker.update(value: boundary - 3, at: t(54))
        #expect(tracker.zone == zone)
    }

    @Test("A spike shorter than the dwell time does not change the zone")
    func spike() {
        var tracker = ZoneTracker(zones: zones)
        tracker.update(value: 120, at: t(0))
        tracker.update(value: 175, at: t(1))
        tracker.update(value: 176, at: t(2))
        tracker.update(value: 121, at: t(3))
        tracker.update(value: 120, at: t(10))
        #expect(tracker.zone == 2)
    }

    @Test("Time in zone is counted from the readings, not the zone shown, and not across gaps")
    func timeInZone() {
        var time = ZoneTime(zones: zones)
        for s in 0...10 { time.add(value: 120, at: Double(s)) }
        time.add(value: 120, at: 100) // a 90 s gap counts as at most 5 s
        #expect(time.seconds[2] == 15)
        // A spike the shown zone ignores is time in its own zone all the same.
        time.add(value: 175, at: 101)
        time.add(value: 120, at: 103)
        #expect(time.seconds[2] == 16 && time.seconds[5] == 2)
    }

    @Test("Readings that wander across other zones' boundaries still move the shown zone: the LED follows a sustained effort")
    func sustainedChangeAcrossBoundaries() {
        // Shown zone 1; then 20 s alternating over the 3/4 boundary (152) by more than the margin, then zone 5.
        var tracker = ZoneTracker(zones: zones, margin: 2, dwellSeconds: 3)
        tracker.update(value: 100, at: t(0))
        #expect(tracker.zone == 1)
        var shown: [Int] = []
        for s in 1...20 { shown.append(tracker.update(value: s % 2 == 0 ? 156 : 148, at: t(Double(s)))) }
        // Neither zone 3 nor zone 4 holds for the dwell, but the rider has left zone 1 for good: the nearer one shows.
        #expect(shown.suffix(16).allSatisfy { $0 == 3 }, "\(shown)")
        // Readings that stay in zone 5 show it within the dwell time.
        for s in 21...24 { tracker.update(value: 175, at: t(Double(s))) }
        #expect(tracker.zone == 5)
    }

    @Test("Readings brushing the next zone's edge by less than the margin move the zone to the one they are clearly in")
    func movesToTheClearZone() {
        var tracker = ZoneTracker(zones: zones, margin: 3, dwellSeconds: 3)
        tracker.update(value: 100, at: t(0)) // zone 1
        // Zone 3 (133-151), touching 152 and 153 (zone 4, within the margin) every other second.
        for (s, v) in [(1, 140), (2, 152), (3, 141), (4, 153), (5, 140), (6, 153)] { tracker.update(value: v, at: t(Double(s))) }
        #expect(tracker.zone == 3)
    }
}

@Suite struct ZoneModelTests {
    @Test("Karvonen: resting + percentage of the reserve")
    func reserve() {
        // max 190, resting 60: reserve 130; 50 % → 125, 90 % → 177
        #expect(ZoneBoundaries.percentOfReserve(max: 190, resting: 60, percentages: [50, 60, 70, 80, 90]).lowerBounds == [125, 138, 151, 164, 177])
    }

    @Test("Friel's seven zones and the five-zone variant from LTHR")
    func threshold() {
        #expect(ZoneBoundaries.frielSeven(lactateThreshold: 170).lowerBounds == [1, 145, 153, 162, 170, 175, 180])
        #expect(ZoneBoundaries.thresholdFive(lactateThreshold: 170).lowerBounds == [1, 138, 153, 160, 170])
        #expect(ZoneBoundaries.frielSeven(lactateThreshold: 170).zone(for: 171) == 5)
        #expect(ZoneBoundaries(lowerBounds: [100, 100]).isValid == false)
    }
}
