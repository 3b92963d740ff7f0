import Dispatch
import Glibc

/// SIGINT and SIGTERM as an async sequence. The default actions are switched off and Dispatch signal
/// sources report the signals instead, so shutdown runs as ordinary async code, in order.
/// @unchecked: `sources` is set once in init and only cancelled in deinit.
public final class TerminationSignals: @unchecked Sendable {
    public let signals: AsyncStream<Int32>
    private let sources: [DispatchSourceSignal]

    public init(_ watched: [Int32] = [SIGINT, SIGTERM]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = stream
        let queue = DispatchQueue(label: "ridegate.signals")
        sources = watched.map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { continuation.yield(sig) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }
}
