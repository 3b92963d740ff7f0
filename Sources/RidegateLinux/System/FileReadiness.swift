/// Waits, without holding a thread, until a descriptor is writable (a connect(2) in progress has
/// finished) or a timeout passes: the event loop's epoll and a timer of its own, first one wins.
public enum FileReadiness {
    public static func writable(_ fd: FileDescriptor, timeout: Double, on loop: EventLoop) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let done = Locked(false)
            let timer = Locked<DeferredWork?>(nil)
            let finish: @Sendable (Bool) -> Void = { result in
                guard done.withLock({ d -> Bool in defer { d = true }; return !d }) else { return }
                loop.unwatch(fd.rawValue)
                timer.withLock { $0 }?.cancel()
                continuation.resume(returning: result)
            }
            do throws(Errno) {
                // Readable or hung up counts too: a refused connect reports an error, which the caller reads.
                try loop.watch(fd.rawValue) { _ in finish(true) }
                loop.wantWritable(fd.rawValue, true)
            } catch {
                return finish(true) // not watchable: let the caller's connect result say why
            }
            let deadline = loop.execute(after: timeout) { finish(false) }
            timer.withLock { $0 = deadline }
            if done.withLock({ $0 }) { deadline.cancel() }
        }
    }
}
