@testable import RidegateApp
@testable import RidegateDemo
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// A demo sensor end to end: its simulated peripheral, the real ATT client and session, the measurements they make.
struct SimulatedSensorTests {
    static func measurements(_ events: [SourceEvent]) -> Int {
        events.filter { if case .sensorMeasurement = $0 { true } else { false } }.count
    }

    @Test("Past the profile's last second a sensor holds it until the receiver's last fix is read (a reader behind its writer still has fixes to come), then ends")
    func holdsUntilTheRideIsOver() async throws {
        let loop = try EventLoop.started()
        defer { loop.stop() }
        let log = CapturingLogHandler()
        let schedule = RideSchedule(loop: loop, logger: log.logger())
        // Three seconds of ride, at 100×: the profile is over after 30 ms.
        let profile = RideProfile(samples: (0...2).map { RideProfile.Sample(offset: Double($0), speed: 7, grade: 0) })
        let end = RideEnd()
        let sensor = SimulatedSensor(
            name: "strap", sensor: .strap("test-strap"),
            behaviour: .init(name: "Test strap", services: [.heartRate], manufacturer: "ridegate", model: "test", serialNumber: "1"),
            profile: profile, speed: 100, start: schedule, afterFirstFix: false, end: end, clock: SystemClock(),
            logger: log.logger(), loop: loop, signal: HeartRateSignal())
        let events = EventLog([])
        let ended = Observed(false)
        Task(executorPreference: loop) {
            await sensor.run(emit: events.append)
            ended.update { $0 = true }
        }
        // Ten times the profile's readings: it held on while the ride was not over.
        let held = await events.wait(timeout: 30) { Self.measurements($0) >= 30 }
        #expect(Self.measurements(held) >= 30, "\(Self.measurements(held)) readings for a profile of 3 seconds")
        end.finish()
        #expect(await ended.wait(timeout: 10) { $0 }, "the sensor still runs 10 s after the ride was over")
    }
}
