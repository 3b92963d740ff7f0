import CLinuxShim
import Glibc
import RidegateCore

/// The signals that stop the gateway (SIGINT, SIGTERM, SIGQUIT) as an async sequence, and the ones a
/// service manager or a user sends that must not kill it (SIGHUP from systemd's reload or a closed terminal,
/// logrotate's or a user's SIGUSR1/SIGUSR2), reported to `onIgnored` instead. A handler writes each signal to a
/// pipe that the event loop watches, so shutdown runs as ordinary async code and no thread waits for signals.
///
/// The watch lasts as long as `signals` is consumed (the stream holds it): a caller that keeps only the
/// stream still hears Ctrl-C. Then the signals are ignored. One set at a time per process.
public final class TerminationSignals: Sendable {
    public static let stopping: [Int32] = [SIGINT, SIGTERM, SIGQUIT]
    public static let ignored: [Int32] = [SIGHUP, SIGUSR1, SIGUSR2]

    public let signals: AsyncStream<Int32>

    /// `loop` watches the signal pipe (the process's: signals are the process's).
    public init(_ watched: [Int32] = TerminationSignals.stopping, on loop: EventLoop, onIgnored: (@Sendable (Int32) -> Void)? = nil) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = stream
        let handled = watched + (onIgnored == nil ? [] : Self.ignored.filter { !watched.contains($0) })
        // Without a pipe the default actions stay: a signal still stops the process, just not in order.
        let readEnd = handled.withUnsafeBufferPointer { rg_signal_pipe_open($0.baseAddress, Int32($0.count)) }
        guard readEnd >= 0 else { return }
        let end: @Sendable () -> Void = {
            loop.unwatch(readEnd)
            handled.withUnsafeBufferPointer { rg_signal_pipe_close(readEnd, $0.baseAddress, Int32($0.count)) }
        }
        do throws(Errno) {
            try loop.watch(readEnd) { _ in
                var numbers = [UInt8](repeating: 0, count: 16)
                while true {
                    let count = read(readEnd, &numbers, numbers.count)
                    guard count > 0 else { return }
                    for number in numbers.prefix(count) {
                        let signal = Int32(number)
                        if watched.contains(signal) { continuation.yield(signal) } else { onIgnored?(signal) }
                    }
                }
            }
        } catch {
            end()
            return
        }
        continuation.onTermination = { _ in loop.execute(end) }
    }

    /// The gateway's signals: stop on SIGINT, SIGTERM, SIGQUIT; say so and carry on for SIGHUP, SIGUSR1, SIGUSR2.
    public convenience init(on loop: EventLoop, logger: Logger) {
        self.init(on: loop, onIgnored: { sig in
            logger.notice("signal ignored: ridegate does not reload its configuration; restart it to apply changes",
                          [("signal", TerminationSignals.name(sig)), ("hint", "systemctl restart ridegate")])
        })
    }

    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGQUIT: "SIGQUIT"
        case SIGHUP: "SIGHUP"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }
}
