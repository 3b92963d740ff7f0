import Foundation

/// Test deadlines, stretched for slow runs: RIDEGATE_TEST_TIME_SCALE=10 when the suite runs under qemu-user
/// (scripts/test-arm64), where everything takes about ten times longer. 1 on a native build. These are how long a
/// test waits, not what it asserts: how soon something happens is a benchmark's to measure.
public enum TestTime {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["RIDEGATE_TEST_TIME_SCALE"], let value = Double(text) else { return 1 }
        return max(1, value)
    }()

    /// `seconds`, stretched by the scale.
    public static func seconds(_ seconds: Double) -> Double { seconds * scale }

    /// Sleeps for `seconds`, stretched by the scale (a test's pause, such as a broker outage).
    public static func pause(_ seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(Self.seconds(seconds) * 1e9))
    }
}
