import RidegateCore
import Testing

/// Where a ride ends and the next begins, on GPS time: the rule the ride log follows for every point.
@Suite struct RideBoundariesTests {
    static let thirtyMinutes = 30.0 * 60
    static func open(start: Double = 0, end: Double, moved: Double, points: Int = 10) -> RideBoundaries.OpenRide {
        RideBoundaries.OpenRide(start: start, end: end, moved: moved, points: points)
    }

    @Test("A café stop shorter than new_ride_after continues the ride; longer, moving, a new ride begins")
    func stops() {
        var rule = RideBoundaries(newRideAfter: Self.thirtyMinutes)
        #expect(rule.place(time: 0, pointMoving: true, moving: true, in: nil) == .add)
        let ride = Self.open(end: 100, moved: 100)
        #expect(rule.place(time: 100 + 29 * 60, pointMoving: true, moving: true, in: ride) == .add)
        #expect(rule.place(time: 100 + 31 * 60, pointMoving: true, moving: true, in: ride) == .newRide)
    }

    @Test("Standing longer than new_ride_after ends the ride at once; nothing is kept until the bike moves, which begins the next")
    func parked() {
        var rule = RideBoundaries(newRideAfter: Self.thirtyMinutes)
        let ride = Self.open(end: 1000, moved: 100)
        #expect(rule.place(time: 100 + 31 * 60, pointMoving: false, moving: false, in: ride) == .park)
        #expect(rule.place(time: 100 + 32 * 60, pointMoving: false, moving: false, in: nil) == .skip)
        #expect(rule.place(time: 100 + 33 * 60, pointMoving: true, moving: true, in: nil) == .add)
    }

    @Test("After the rider ended the ride, standing points are not kept; the next movement begins a new ride")
    func endedOnPurpose() {
        var rule = RideBoundaries(newRideAfter: Self.thirtyMinutes)
        rule.rideEnded()
        #expect(rule.place(time: 10, pointMoving: false, moving: false, in: nil) == .skip)
        #expect(rule.place(time: 11, pointMoving: true, moving: true, in: nil) == .add)
    }

    @Test("A repeated or old epoch is not kept; one before the ride's start (a clock set back) begins its own ride")
    func oldEpochs() {
        var rule = RideBoundaries(newRideAfter: Self.thirtyMinutes)
        let ride = Self.open(start: 1000, end: 1100, moved: 1100)
        #expect(rule.place(time: 1100, pointMoving: true, moving: true, in: ride) == .skip)
        #expect(rule.place(time: 1050, pointMoving: true, moving: true, in: ride) == .skip)
        #expect(rule.place(time: 900, pointMoving: false, moving: false, in: ride) == .newRide)
        #expect(rule.place(time: 1000, pointMoving: true, moving: true, in: Self.open(start: 1000, end: 1000, moved: 1000, points: 0)) == .add)
    }
}
