import Foundation

/// Runs blocking work (a SQLite busy wait, a sleep) on a thread of its own: the test's cooperative threads —
/// as many as the machine has cores — stay free for the tests running beside it.
public enum OffThePool {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
        }
    }
}
