@testable import RidegateCore
import Testing

/// When the sun is published again, and which position is remembered for the next start.
struct SunScheduleTests {
    let noon = Timestamp(date: CivilDate(year: 2026, month: 6, day: 21), secondsOfDay: 12 * 3600)

    func schedule() -> SunSchedule { SunSchedule(moveThresholdMeters: 25_000, interval: 60, warningLead: 1800) }

    @Test("Due on the first position, when the rider has moved 25 km, after the interval, on a new day; not otherwise")
    func whenDue() throws {
        var sun = schedule()
        #expect(!sun.hasReported)
        #expect(sun.report(latitude: 51.5, longitude: -0.13, now: noon, force: false) != nil)
        #expect(sun.hasReported)
        // 11 km north, 30 s later: the times have barely moved, the countdown not yet.
        #expect(sun.report(latitude: 51.6, longitude: -0.13, now: noon + 30, force: false) == nil)
        // 33 km from where it was published: sunrise and sunset shift.
        #expect(sun.report(latitude: 51.8, longitude: -0.13, now: noon + 40, force: false) != nil)
        #expect(sun.report(latitude: 51.8, longitude: -0.13, now: noon + 99, force: false) == nil)
        #expect(sun.report(latitude: 51.8, longitude: -0.13, now: noon + 100, force: false) != nil)
        #expect(sun.report(latitude: 51.8, longitude: -0.13, now: noon + 101, force: true) != nil)
        // Past midnight by the sun's clock where the rider is: a new solar day, within the interval.
        var late = schedule()
        let beforeMidnight = Timestamp(date: CivilDate(year: 2026, month: 6, day: 21), secondsOfDay: 86_400 - 40)
        #expect(late.report(latitude: 51.5, longitude: 0, now: beforeMidnight, force: false) != nil)
        #expect(late.report(latitude: 51.5, longitude: 0, now: beforeMidnight + 50, force: false) != nil)
    }

    @Test("A position is remembered when it is a kilometre from the last one remembered: a parked bike writes nothing")
    func remembersFarPositions() {
        var sun = schedule()
        sun.recall(latitude: 51.5, longitude: -0.13)
        #expect(sun.report(latitude: 51.5, longitude: -0.13, now: noon, force: true)?.remember == false)
        #expect(sun.report(latitude: 51.505, longitude: -0.13, now: noon + 60, force: false)?.remember == false) // 560 m
        #expect(sun.report(latitude: 51.51, longitude: -0.13, now: noon + 120, force: false)?.remember == true) // 1.1 km
        #expect(sun.report(latitude: 51.515, longitude: -0.13, now: noon + 180, force: false)?.remember == false)
        var fresh = schedule()
        #expect(fresh.report(latitude: 51.5, longitude: -0.13, now: noon, force: false)?.remember == true) // none remembered
    }
}
