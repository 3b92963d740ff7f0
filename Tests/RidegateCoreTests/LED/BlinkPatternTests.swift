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
        for status in LEDSignal.statuses {
            let p = SingleLEDPatterns.pattern(for: status)
            #expect(!zones.contains(p), "\(status)")
            // Zones only ever use 100 or 150 ms flashes; statuses never do.
            #expect(p.steps.filter(\.on).allSatisfy { $0.milliseconds != 150 && $0.milliseconds != 100 }, "\(status)")
        }
    }

    @Test("No two statuses share a pattern, in any wiring")
    func statusesDifferFromEachOther() {
        for layout in [LEDLayout.single, .rgb, .bar(lines: 5)] {
            let patterns = LEDSignal.statuses.map { layout.pattern(for: $0) }
            for (i, p) in patterns.enumerated() {
                #expect(!patterns[(i + 1)...].contains(p), "\(layout): \(LEDSignal.statuses[i])")
            }
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

@Suite struct MultiLineLEDPatternTests {
    static let statuses = LEDSignal.statuses

    @Test("RGB: each zone a steady colour of its own; the top zone flashes red; statuses always blink")
    func rgb() {
        let zones = (1...4).map { RGBLEDPatterns.pattern(for: .zone($0, of: 5)) }
        #expect(zones.allSatisfy { $0.millisecondsToNextEdge(after: 0) == nil && $0.lines(atMilliseconds: 0) != 0 })
        #expect(Set(zones.map { $0.lines(atMilliseconds: 0) }).count == 4)
        #expect(RGBLEDPatterns.pattern(for: .zone(1, of: 5)).lines(atMilliseconds: 0) == RGBLEDPatterns.blue)
        #expect(RGBLEDPatterns.pattern(for: .zone(5, of: 5)).frames.map(\.lines) == [RGBLEDPatterns.red, 0])
        for status in Self.statuses {
            #expect(RGBLEDPatterns.pattern(for: status).millisecondsToNextEdge(after: 0) != nil, "\(status) must blink")
        }
        #expect(RGBLEDPatterns.pattern(for: .zone(7, of: 8)).lines(atMilliseconds: 0) == 7) // white, seven-zone models
    }

    @Test("A zone's colour for Home Assistant is the one the RGB LED shows for it")
    func zoneColourIsTheLEDs() {
        #expect((0...5).map { RGBLEDPatterns.zoneColour($0, of: 5) } == ["#0000ff", "#0000ff", "#00ffff", "#00ff00", "#ffff00", "#ff0000"])
        #expect(RGBLEDPatterns.zoneColour(6, of: 7) == "#ff00ff")
        #expect(RGBLEDPatterns.zoneColour(7, of: 7) == "#ff0000")
    }

    @Test("Bar: zone N lights the first N LEDs steadily; statuses blink", arguments: 1...4)
    func bar(zone: Int) {
        let p = BarLEDPatterns.pattern(for: .zone(zone, of: 5), lineCount: 5)
        #expect(p.lines(atMilliseconds: 0) == UInt8((1 << zone) - 1))
        #expect(p.millisecondsToNextEdge(after: 0) == nil)
        for status in Self.statuses {
            #expect(BarLEDPatterns.pattern(for: status, lineCount: 5).millisecondsToNextEdge(after: 0) != nil)
        }
    }

    @Test("At dusk the zone still shows, with a long pulse no zone has", arguments: 1...4)
    func zoneAtDusk(zone: Int) {
        let dusk = SingleLEDPatterns.pattern(for: .zoneAtDusk(zone, of: 5))
        #expect(dusk.steps.filter { $0.on && $0.milliseconds == 150 }.count == zone)
        #expect(dusk.steps.contains { $0.on && $0.milliseconds == 600 })
        #expect(!(0...5).map { SingleLEDPatterns.pattern(for: .zone($0, of: 5)) }.contains(dusk))
    }
}
