import RidegateTestSupport

extension ChildProcess {
    /// Waits until a demo's ride is under way (its first `riding:` line), at most `timeout` seconds. The demo
    /// connects its simulated sensors before the ride's second 0, which on a busy machine takes seconds: a test
    /// that lets the demo ride for a while counts from here, not from the launch.
    @discardableResult
    func waitForRideStart(timeout: Double = 30) async -> Bool {
        let riding: ([String]) -> Bool = { $0.contains { $0.hasPrefix("riding: ") } }
        return riding(await waitForOutput(timeout: TestTime.seconds(timeout), until: riding))
    }
}
