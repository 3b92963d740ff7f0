@testable import RidegateApp
@testable import RidegateDemo
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// A recorded ride's second 0: its receiver and its sensors start together once every sensor is connected, so a
/// machine slow to bring the links up does not cut the ride's first seconds from the sensors' readings.
struct RideStartTests {
    /// A ride start waiting for these sensors, and its log.
    func rideStart(patience: Double, expecting sensors: [String]) throws -> (RideStart, CapturingLogHandler, EventLoop) {
        let log = CapturingLogHandler()
        let loop = try EventLoop.started()
        let start = RideStart(patience: patience, loop: loop, logger: log.logger())
        for sensor in sensors { start.expect(sensor) }
        return (start, log, loop)
    }

    @Test("The ride waits for its last sensor, and every waiter gets the same second 0")
    func waitsForEverySensor() async throws {
        let (start, log, loop) = try rideStart(patience: 60, expecting: ["strap", "power"])
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
        let (start, log, _) = try rideStart(patience: 0.2, expecting: ["strap", "power"])
        start.connected("strap")
        let origin = await start.origin()
        #expect(origin <= SystemClock.monotonicSeconds())
        #expect(log.lines.contains { $0.contains("without every sensor") && $0.contains("power") && !$0.contains("strap") }, "\(log.lines)")
    }

    @Test("A recording's receiver sends nothing until its sensors are connected", .referenceCorpus)
    func receiverWaitsForTheSensors() async throws {
        let (start, log, loop) = try rideStart(patience: 60, expecting: ["power"])
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
        let (start, log, _) = try rideStart(patience: 60, expecting: [])
        let before = SystemClock.monotonicSeconds()
        let origin = await start.origin()
        #expect(origin >= before && origin <= before + 1)
        #expect(log.lines.isEmpty)
    }

    @Test("A receiver held up moves the whole ride's schedule back, and the sensors follow; on time, nothing moves")
    func heldUpReceiverMovesTheSchedule() async throws {
        let (start, _, _) = try rideStart(patience: 60, expecting: [])
        let now = SystemClock.monotonicSeconds()
        // On time: the receiver waits out its epoch and the schedule stays.
        await start.receiverWaits(for: 0.05, speed: 1, origin: now)
        #expect(SystemClock.monotonicSeconds() >= now + 0.05)
        #expect(start.due(1, speed: 1, origin: now) == now + 1)
        // A ride second 0 a hundred seconds ago: the epoch due at second 1 is 99 s late; it goes now, and the
        // next epoch and the sensors' next tick are due a ride second from here, not at once.
        let origin = SystemClock.monotonicSeconds() - 100
        await start.receiverWaits(for: 1, speed: 1, origin: origin)
        let after = SystemClock.monotonicSeconds()
        let nextTick = start.due(2, speed: 1, origin: origin)
        #expect(nextTick > after + 0.5 && nextTick <= after + 1, "the next tick is due \(nextTick - after) s from now")
        // Less than half a ride second late is a busy loop's jitter, not a hold-up: the epoch goes, nothing moves.
        let heldBack = start.due(0, speed: 1, origin: 0)
        await start.receiverWaits(for: 0, speed: 1, origin: SystemClock.monotonicSeconds() - 0.3 - heldBack)
        #expect(start.due(0, speed: 1, origin: 0) == heldBack)
    }
}
