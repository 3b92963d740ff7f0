import Dispatch

/// Waits, without holding a thread, until a descriptor is writable (a connect(2) in progress has
/// finished) or a timeout passes: a Dispatch write source (epoll) and a timer, first one wins.
public enum FileReadiness {
    public static func writable(_ fd: FileDescriptor, timeout: Double) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
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
}
