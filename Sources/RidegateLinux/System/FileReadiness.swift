import Dispatch

/// Waits, without holding a thread, until a descriptor is writable (a connect(2) in progress has
/// finished) or a timeout passes: the event loop's epoll and a timer of its own, first one wins (off any
/// loop, a part used alone: a Dispatch write source and timer).
public enum FileReadiness {
    public static func writable(_ fd: FileDescriptor, timeout: Double) async -> Bool {
        if let loop = EventLoop.current { return await writable(fd, timeout: timeout, on: loop) }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let queue = DispatchQueue(label: "ridegate.writable")
            let done = Locked(false)
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd.rawValue, queue: queue)
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let finish = { (result: Bool) in
                guard done.withLock({ d -> Bool in defer { d = true }; return !d }) else { return }
                source.cancel()
                timer.cancel()
                continuation.resume(returning: result)
            }
            source.setEventHandler { finish(true) }
            timer.setEventHandler { finish(false) }
            timer.schedule(deadline: .now() + timeout)
            source.resume()
            timer.resume()
        }
    }

    private static func writable(_ fd: FileDescriptor, timeout: Double, on loop: EventLoop) async -> Bool {
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
