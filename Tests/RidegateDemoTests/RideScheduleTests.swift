@testable import RidegateApp
@testable import RidegateDemo
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// A recorded ride's second 0: its receiver and its sensors start together once every sensor is connected, so a
/// machine slow to bring the links up does not cut the ride's first seconds from the sensors' readings.
struct RideScheduleTests {
    /// A ride start waiting for these sensors, and its log.
    func rideSchedule(patience: Double, expecting sensors: [String]) throws -> (RideSchedule, CapturingLogHandler, EventLoop) {
        let log = CapturingLogHandler()
        let loop = try EventLoop.started()
        let start = RideSchedule(patience: patience, loop: loop, logger: log.logger())
        for sensor in sensors { start.expect(sensor) }
        return (start, log, loop)
    }

    @Test("The ride waits for its last sensor, and every waiter gets the same second 0")
    func waitsForEverySensor() async throws {
        let (start, log, loop) = try rideSchedule(patience: 60, expecting: ["strap", "power"])
        let returned = Locked<Double?>(nil)
        let receiver = Task(executorPreference: loop) {
            let origin = await start.origin()
            returned.withLock { $0 = origin }
            return origin
        }
        start.connected("strap")
        start.connected("strap") // a reconnect counts once
        await loop.sleep(seconds: 0.3)
        #expect(returned.withLock { $0 } == nil, "the ride started with the power meter still connecting")
        let lastConnected = SystemClock.monotonicSeconds()
        start.connected("power")
        let origin = await receiver.value
        #expect(origin >= lastConnected)
        #expect(await start.origin() == origin)
        #expect(log.lines.isEmpty, "\(log.lines)")
    }

    @Test("A sensor that never connects holds the ride back no longer than the patience, and the log names it")
    func givesUpOnAMissingSensor() async throws {
        let (start, log, _) = try rideSchedule(patience: 0.2, expecting: ["strap", "power"])
        start.connected("strap")
        let origin = await start.origin()
        #expect(origin <= SystemClock.monotonicSeconds())
        #expect(log.lines.contains { $0.contains("without every sensor") && $0.contains("power") && !$0.contains("strap") }, "\(log.lines)")
    }

    @Test("A recording's receiver sends nothing until its sensors are connected", .referenceCorpus)
    func receiverWaitsForTheSensors() async throws {
        let (start, log, loop) = try rideSchedule(patience: 60, expecting: ["power"])
        let replayer = RecordedRideReplayer(ride: try RecordedRide(path: Fixtures.path("rides/garmin-edge-820-bike.fit")), speed: 20, startAt: nil,
                                            start: start, logger: log.logger(), loop: loop)
        let pty = try PseudoTerminal()
        let events = EventLog([])
        let receiver = GPSSource(
            devicePath: pty.devicePath, baud: .fixed(9600), clock: SystemClock(), logger: log.logger(), loop: loop, stopWhenDeviceCloses: true)
        let reading = Task(executorPreference: loop) { await receiver.run(emit: events.append) }
        let playing = Task(executorPreference: loop) { await replayer.play(into: pty) }
        await loop.sleep(seconds: 0.5)
        #expect(events.current.fixes.isEmpty, "the receiver sent fixes with the power meter still connecting")
        start.connected("power")
        #expect(await events.wait(timeout: 10) { !$0.fixes.isEmpty }.fixes.count >= 1)
        playing.cancel()
        await playing.value
        pty.close()
        await reading.value
    }

    @Test("A ride without sensors starts at once")
    func noSensors() async throws {
        let (start, log, _) = try rideSchedule(patience: 60, expecting: [])
        let before = SystemClock.monotonicSeconds()
        let origin = await start.origin()
        #expect(origin >= before && origin <= before + 1)
        #expect(log.lines.isEmpty)
    }

    @Test("A part held up moves the whole ride's schedule back, and the others follow; on time, nothing moves")
    func heldUpReceiverMovesTheSchedule() async throws {
        let (start, _, _) = try rideSchedule(patience: 60, expecting: [])
        let now = SystemClock.monotonicSeconds()
        // On time: the receiver waits out its epoch and the schedule stays.
        await start.waits("receiver", for: 0.05, speed: 1, origin: now)
        #expect(SystemClock.monotonicSeconds() >= now + 0.05)
        #expect(start.due(1, speed: 1, origin: now) == now + 1)
        // A ride second 0 a hundred seconds ago: the epoch due at second 1 is 99 s late; it goes now, and the
        // next epoch and the sensors' next tick are due a ride second from here, not at once.
        let origin = SystemClock.monotonicSeconds() - 100
        await start.waits("receiver", for: 1, speed: 1, origin: origin)
        let after = SystemClock.monotonicSeconds()
        let nextTick = start.due(2, speed: 1, origin: origin)
        #expect(nextTick > after + 0.5 && nextTick <= after + 1, "the next tick is due \(nextTick - after) s from now")
        // Less than half a ride second late is a busy loop's jitter, not a hold-up: the epoch goes, nothing moves.
        let heldBack = start.due(0, speed: 1, origin: 0)
        await start.waits("receiver", for: 0, speed: 1, origin: SystemClock.monotonicSeconds() - 0.3 - heldBack)
        #expect(start.due(0, speed: 1, origin: 0) == heldBack)
    }

    @Test("The ride's clock: it stops at the earliest second a part is still to send, stands still while the ride is held back, never goes back")
    func clockFollowsTheReplay() async throws {
        let (start, _, _) = try rideSchedule(patience: 60, expecting: [])
        start.joins("receiver")
        start.joins("strap")
        let clockOrigin = SystemClock.monotonicSeconds()
        let origin = await start.origin()
        let speed = 100.0
        let atZero = (origin - clockOrigin) * speed
        // Long after second 0, with both parts still to send second 0: the clock reads second 0, not the minute a
        // free clock would.
        #expect(start.elapsed(at: origin + 60, since: clockOrigin, rate: speed) == atZero)
        // The receiver is on to second 5, the strap still at 0.
        start.sends("receiver", next: 5)
        #expect(start.elapsed(at: origin + 60, since: clockOrigin, rate: speed) == atZero)
        start.sends("strap", next: 3)
        #expect(start.elapsed(at: origin + 60, since: clockOrigin, rate: speed) == atZero + 3)
        // Both at second 10, 99 ms after second 0: the clock reads what a free one would, 9.9 s on.
        start.sends("receiver", next: 10)
        start.sends("strap", next: 10)
        #expect(abs(start.elapsed(at: origin + 0.099, since: clockOrigin, rate: speed) - (atZero + 9.9)) < 1e-6)
        // Asked about an earlier moment, it does not go back.
        #expect(abs(start.elapsed(at: origin + 0.05, since: clockOrigin, rate: speed) - (atZero + 9.9)) < 1e-6)
        // Held up for 1 000 s (a part found its second long past): the clock stands still over the hold-up and
        // runs on after it.
        await start.waits("strap", for: 0, speed: speed, origin: clockOrigin - 1000)
        let heldBack = start.due(0, speed: 1, origin: 0)
        #expect(heldBack > 1000)
        start.sends("receiver", next: 30)
        start.sends("strap", next: 30)
        #expect(abs(start.elapsed(at: origin + heldBack + 0.05, since: clockOrigin, rate: speed) - (atZero + 9.9)) < 1e-6)
        #expect(abs(start.elapsed(at: origin + heldBack + 0.2, since: clockOrigin, rate: speed) - (atZero + 20)) < 1e-6)
        // Once the ride has left, the clock runs freely again.
        start.leaves("receiver")
        start.leaves("strap")
        #expect(abs(start.elapsed(at: origin + heldBack + 1, since: clockOrigin, rate: speed) - (atZero + 100)) < 1e-6)
    }
}
