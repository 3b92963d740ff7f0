import RidegateCore
import Testing

@Suite struct RepeatedFailuresTests {
    @Test("Each reason said once, two alternating reasons not once per attempt, then once a minute with the count")
    func eachReasonOnce() {
        var failures = RepeatedFailures(interval: 60)
        let attempts: [(String, Double)] = [
            ("refused certificate", 0), ("refused certificate", 1), ("connection reset", 2),
            ("refused certificate", 4), ("connection reset", 8), ("connection reset", 62),
        ]
        let said = attempts.map { failures.failed($0.0, at: $0.1) }
        #expect(said == [true, false, true, false, false, true])
        #expect(failures.attempts == 6 && failures.lastReason == "connection reset")
    }

    @Test("After a success the same reason is news again")
    func successForgets() {
        var failures = RepeatedFailures(interval: 60)
        let first = failures.failed("refused", at: 0)
        failures.succeeded()
        #expect(failures.attempts == 0 && failures.lastReason == nil)
        let again = failures.failed("refused", at: 1)
        #expect(first && again)
    }
}
