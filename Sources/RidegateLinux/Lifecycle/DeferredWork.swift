import Dispatch

/// Work set to run later, which can be called off. Cancelling work that already ran does nothing.
public struct DeferredWork: Sendable {
    private let cancelling: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) {
        cancelling = cancel
    }

    public func cancel() { cancelling() }

    /// Runs `body` once `seconds` have passed, on the current task's event loop: the loop's own epoll timeout,
    /// so the daemon's one thread is the only one woken. Off any loop (a part tested on its own) a Dispatch
    /// timer does it.
    @discardableResult
    public static func after(_ seconds: Double, _ body: @escaping @Sendable () -> Void) -> DeferredWork {
        if let loop = EventLoop.current { return loop.execute(after: seconds, body) }
        let cancelled = Locked(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, min(seconds, 3e9))) {
            if !cancelled.withLock({ $0 }) { body() }
        }
        return DeferredWork { cancelled.withLock { $0 = true } }
    }
}
