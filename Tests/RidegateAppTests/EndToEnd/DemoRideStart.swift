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

    /// Waits until a demo's live line shows at least `seconds` of riding (`riding: H:MM:SS · …`), at most `timeout`
    /// seconds: a test that needs so much of a ride waits for the ride, not for the wall clock (a loaded machine
    /// rides the demo slower, never differently).
    @discardableResult
    func waitForRideTime(_ seconds: Int, timeout: Double = 120) async -> Bool {
        let ridden: ([String]) -> Bool = { lines in
            lines.contains { line in
                guard line.hasPrefix("riding: ") else { return false }
                let clock = line.dropFirst(8).prefix { $0 != " " }.split(separator: ":").compactMap { Int($0) }
                return clock.count == 3 && clock[0] * 3600 + clock[1] * 60 + clock[2] >= seconds
            }
        }
        return ridden(await waitForOutput(timeout: TestTime.seconds(timeout), until: ridden))
    }
}
