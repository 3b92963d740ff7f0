import RidegateCore
import Testing

@Suite struct BlinkPatternTests {
    @Test("Zone N in single mode is N short blinks then a pause", arguments: 1...4)
    func zoneBlinks(zone: Int) {
        let p = SingleLEDPatterns.pattern(for: .zone(zone, of: 5))
        let ons = p.edges.filter(\.on)
        #expect(ons.count == zone)
        #expect(p.steps.filter(\.on).allSatisfy { $0.milliseconds == 150 })
        #expect(p.steps.last?.on == false && (p.steps.last?.milliseconds ?? 0) >= 1500)
    }

    @Test("The top zone blinks fast and steadily")
    func topZone() {
        let p = SingleLEDPatterns.pattern(for: .zone(5, of: 5))
        #expect(p.periodMilliseconds == 200)
        #expect(p.edges.map(\.milliseconds) == [0, 100])
    }

    @Test("No status pattern looks like any zone pattern")
    func statusesAreDistinct() {
        let zones = (0...5).map { SingleLEDPatterns.pattern(for: .zone($0, of: 5)) }
        for status in [LEDSignal.searchingForStrap, .strapLost, .noSensorContact, .noGPSFix] {
            let p = SingleLEDPatterns.pattern(for: status)
            #expect(!zones.contains(p), "\(status)")
            // Zones only ever use 100 or 150 ms flashes; statuses never do.
            #expect(p.steps.filter(\.on).allSatisfy { $0.milliseconds != 150 && $0.milliseconds != 100 }, "\(status)")
        }
    }

    @Test("The timeline: level at a time, and the wait until the next edge")
    func timeline() {
        let p = SingleLEDPatterns.pattern(for: .zone(2, of: 5)) // on150 off250 on150 off250 off1500
        #expect(p.isOn(atMilliseconds: 0))
        #expect(!p.isOn(atMilliseconds: 150))
        #expect(p.isOn(atMilliseconds: 400))
        #expect(p.millisecondsToNextEdge(after: 0) == 150)
        #expect(p.millisecondsToNextEdge(after: 560) == 1740) // merges the two off steps
        #expect(p.isOn(atMilliseconds: p.periodMilliseconds))
        #expect(BlinkPattern.off.millisecondsToNextEdge(after: 0) == nil)
        #expect(BlinkPattern.steadyOn.millisecondsToNextEdge(after: 0) == nil)
    }
}
