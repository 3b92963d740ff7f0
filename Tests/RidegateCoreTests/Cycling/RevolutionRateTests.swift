import RidegateCore
import Testing

/// Cadence and wheel speed from cumulative counters: wraps, no new event, a sensor reset, the 1/2048 s wheel.
@Suite struct RevolutionRateTests {
    func crank(_ revolutions: Int, _ ticks: Int) -> RevolutionData {
        RevolutionData(revolutions: UInt32(revolutions), eventTime: UInt16(ticks), ticksPerSecond: 1024, counterBits: 16)
    }

    func wheel(_ revolutions: UInt32, _ ticks: Int, perSecond: Double = 1024) -> RevolutionData {
        RevolutionData(revolutions: revolutions, eventTime: UInt16(ticks), ticksPerSecond: perSecond, counterBits: 32)
    }

    @Test("90 rpm: one revolution in 2/3 s")
    func cadence() throws {
        let rpm = try #require(RevolutionRate.cadenceRPM(from: crank(10, 1000), to: crank(11, 1000 + 683)))
        #expect(abs(rpm - 89.956) < 0.001)
    }

    @Test("Counters and event times wrap: 65535 → 1 is two revolutions, 65000 → 500 ticks is 1036 ticks")
    func wraps() throws {
        let rpm = try #require(RevolutionRate.cadenceRPM(from: crank(65535, 65000), to: crank(1, 500)))
        #expect(abs(rpm - 2 / (1036.0 / 1024) * 60) < 1e-9)
        let speed = try #require(RevolutionRate.wheelSpeed(from: wheel(UInt32.max - 1, 65000), to: wheel(1, 500 + 1638 - 1036),
                                                           circumferenceMillimetres: 2105))
        #expect(abs(speed - 3 * 2.105 / (1638.0 / 1024)) < 1e-9)
    }

    @Test("A power meter's wheel counts 1/2048 s: the same ticks are half the time, twice the speed")
    func powerMeterWheel() throws {
        let csc = try #require(RevolutionRate.wheelSpeed(from: wheel(0, 0), to: wheel(3, 3276), circumferenceMillimetres: 2105))
        let power = try #require(RevolutionRate.wheelSpeed(from: wheel(0, 0, perSecond: 2048), to: wheel(3, 3276, perSecond: 2048),
                                                           circumferenceMillimetres: 2105))
        #expect(abs(power - 2 * csc) < 1e-9)
    }

    @Test("No new event (same event time): no value, not zero and not infinity")
    func noNewEvent() {
        #expect(RevolutionRate.cadenceRPM(from: crank(10, 1000), to: crank(10, 1000)) == nil)
        #expect(RevolutionRate.step(from: crank(10, 1000), to: crank(10, 1000), maximumRevolutionsPerSecond: 5) == .noNewEvent)
    }

    @Test("A counter that goes backwards (battery changed) is a restart, never a spike")
    func resetIsNotASpike() {
        // 5000 revolutions → 3: modulo 65536 that is 60539 revolutions in one second.
        #expect(
            RevolutionRate.step(
                from: crank(5000, 1000), to: crank(3, 2024), maximumRevolutionsPerSecond: RevolutionRate.maximumCrankRevolutionsPerSecond) == .restart
        )
        #expect(RevolutionRate.cadenceRPM(from: crank(5000, 1000), to: crank(3, 2024)) == nil)
        #expect(RevolutionRate.wheelSpeed(from: wheel(900_000, 100), to: wheel(12, 1124), circumferenceMillimetres: 2105) == nil)
        // The next step from the restarted counter is a rate again.
        #expect(RevolutionRate.cadenceRPM(from: crank(3, 2024), to: crank(4, 2707)) != nil)
    }

    @Test("Coasting: the event time moves, the counter does not: 0 rpm")
    func zeroRate() {
        #expect(RevolutionRate.cadenceRPM(from: crank(10, 1000), to: crank(10, 3000)) == 0)
    }
}
