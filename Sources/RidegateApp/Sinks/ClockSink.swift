import RidegateCore
import RidegateLinux

/// Gives chrony the system clock's offset from GPS time (its SOCK refclock), so a Pi without an RTC or a
/// network keeps the right time on a ride. A chronyd that is not there is said once a minute, with the fix.
public final class ClockSink: EffectSink, @unchecked Sendable {
    // @unchecked: `problems` is touched only in `apply`, which runs on the pipeline's one consumer.
    private let socket: ChronySocket
    private let logger: Logger
    private var problems = RepeatedProblem(interval: 60)
    private var delivered = false

    public init(socket: ChronySocket, logger: Logger) {
        self.socket = socket
        self.logger = logger
    }

    public func apply(_ effect: Effect) {
        guard case .clockSample(let sample) = effect else { return }
        do {
            try socket.send(sample)
            if !delivered {
                delivered = true
                logger.info("giving chrony GPS time", [("chrony.socket", socket.path), ("clock.offset_s", JSONObjectWriter.number(sample.offset, decimals: 3))])
            }
        } catch {
            guard let count = problems.occurred(at: SystemClock.monotonicSeconds()) else { return }
            logger.warning("cannot give chrony GPS time", [("chrony.socket", socket.path), ("error", "\(error)"),
                                                           ("chrony.fix", ChronySocket.advice(for: error)), ("chrony.samples_lost", String(count))])
        }
    }

    public func shutdown() async {}
}
