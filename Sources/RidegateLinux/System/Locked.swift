import Glibc

/// A value behind a mutex that closures can share. A pthread mutex rather than Synchronization's generic
/// `Mutex`: Swift 6.0.3 (the Pi's compiler) crashes in IR generation on a class holding `Mutex<Value>`.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `mutex` held.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }
}
