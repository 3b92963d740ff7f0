/// Work set to run later, which can be called off. Cancelling work that already ran does nothing.
public struct DeferredWork: Sendable {
    private let cancelling: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) {
        cancelling = cancel
    }

    public func cancel() { cancelling() }

    /// Runs `body` once `seconds` have passed, on the current task's event loop: the loop's own epoll timeout,
    /// so the daemon's one thread is the only one woken. Off any loop (a part tested on its own) the same timer
    /// on a loop of its own, which ends when the work has run or is called off; nil if no loop can be made
    /// (out of threads or descriptors), said by the caller.
    @discardableResult
    public static func after(_ seconds: Double, _ body: @escaping @Sendable () -> Void) -> DeferredWork? {
        if let loop = EventLoop.current { return loop.execute(after: seconds, body) }
        guard let own = try? EventLoop() else { return nil }
        let timer = own.execute(after: seconds) {
            own.stop()
            // Not on `own` any more: work it sets up in turn (a watchdog re-arming) makes its own loop.
            EventLoop.$current.withValue(nil) { body() }
        }
        return DeferredWork {
            timer.cancel()
            own.stop()
        }
    }
}
