import Glibc

/// Work that must block (a connect with its DNS lookup and TLS handshake) on a thread of its own that ends
/// with it: the event loop never waits on it, and no pool of threads stays behind to be woken.
public enum BlockingThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread and returns at once.
    public static func start(_ label: String, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        let box = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard started == 0 else {
            box.release()
            throw SystemCallError("pthread_create", label, Errno(rawValue: started))
        }
        pthread_detach(thread)
    }

    /// Runs `body` on a new thread and returns its result; the calling task is suspended meanwhile.
    public static func run<T: Sendable>(_ label: String, _ body: @escaping @Sendable () -> T) async throws(SystemCallError) -> T {
        let outcome: Result<T, SystemCallError> = await withCheckedContinuation { done in
            do throws(SystemCallError) {
                try start(label) { done.resume(returning: .success(body())) }
            } catch {
                done.resume(returning: .failure(error))
            }
        }
        return try outcome.get()
    }
}
