import Dispatch
import Glibc
import RidegateCore

/// The signals that stop the gateway (SIGINT, SIGTERM, SIGQUIT) as an async sequence, and the ones a
/// service manager or a user sends that must not kill it (SIGHUP from systemd's reload or a closed terminal,
/// logrotate's or a user's SIGUSR1/SIGUSR2), reported to `onIgnored` instead. The default actions are
/// switched off and Dispatch signal sources report the signals, so shutdown runs as ordinary async code.
/// @unchecked: `sources` is set once in init and only cancelled in deinit.
public final class TerminationSignals: @unchecked Sendable {
    public static let stopping: [Int32] = [SIGINT, SIGTERM, SIGQUIT]
    public static let ignored: [Int32] = [SIGHUP, SIGUSR1, SIGUSR2]

    public let signals: AsyncStream<Int32>
    private let sources: [DispatchSourceSignal]

    public init(_ watched: [Int32] = TerminationSignals.stopping, onIgnored: (@Sendable (Int32) -> Void)? = nil) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = stream
        let queue = DispatchQueue(label: "ridegate.signals")
        func source(_ sig: Int32, _ handler: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
        var sources = watched.map { sig in source(sig) { continuation.yield(sig) } }
        if let onIgnored {
            sources += Self.ignored.filter { !watched.contains($0) }.map { sig in source(sig) { onIgnored(sig) } }
        }
        self.sources = sources
    }

    /// The gateway's signals: stop on SIGINT, SIGTERM, SIGQUIT; say so and carry on for SIGHUP, SIGUSR1, SIGUSR2.
    public convenience init(logger: Logger) {
        self.init(onIgnored: { sig in
            logger.notice("signal ignored: ridegate does not reload its configuration; restart it to apply changes",
                          [("signal", TerminationSignals.name(sig)), ("hint", "systemctl restart ridegate")])
        })
    }

    deinit {
        for source in sources { source.cancel() }
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
