import Foundation

/// A value that changes on other threads, and async waits for a condition on it. Waiters are resumed by
/// the change that satisfies them (or by their timeout), so tests wait on events without blocking the
/// cooperative thread pool.
public final class Observed<Value: Sendable>: @unchecked Sendable {
    private let lock = NSCondition()
    private var value: Value
    private var waiters: [UUID: (predicate: (Value) -> Bool, continuation: CheckedContinuation<Value, Never>)] = [:]

    public init(_ value: Value) {
        self.value = value
    }

    public var current: Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    public func update(_ mutate: (inout Value) -> Void) {
        lock.lock()
        mutate(&value)
        let snapshot = value
        let ready = waiters.filter { $0.value.predicate(snapshot) }
        for id in ready.keys { waiters[id] = nil }
        lock.broadcast()
        lock.unlock()
        for waiter in ready.values { waiter.continuation.resume(returning: snapshot) }
    }

    /// Returns the value once `predicate` holds, or whatever it is after `timeout` seconds (scaled by TestTime).
    @discardableResult
    public func wait(timeout: TimeInterval, until predicate: @escaping (Value) -> Bool) async -> Value {
        let id = UUID()
        return await withCheckedContinuation { continuation in
            lock.lock()
            if predicate(value) {
                let snapshot = value
                lock.unlock()
                continuation.resume(returning: snapshot)
                return
            }
            waiters[id] = (predicate, continuation)
            lock.unlock()
            DispatchQueue.global().asyncAfter(deadline: .now() + TestTime.seconds(timeout)) { [weak self] in
                guard let self else { return }
                self.lock.lock()
                let waiter = self.waiters.removeValue(forKey: id)
                let snapshot = self.value
                self.lock.unlock()
                waiter?.continuation.resume(returning: snapshot)
            }
        }
    }

    /// The blocking form, for synchronous teardown code; never call it from a task that the awaited change
    /// depends on.
    @discardableResult
    public func waitBlocking(timeout: TimeInterval, until predicate: (Value) -> Bool) -> Value {
        let deadline = Date().addingTimeInterval(TestTime.seconds(timeout))
        lock.lock()
        defer { lock.unlock() }
        while !predicate(value), lock.wait(until: deadline) {}
        return value
    }
}
