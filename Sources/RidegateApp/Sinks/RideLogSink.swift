import Dispatch
import RidegateCore
import RidegateLinux

/// Keeps every point of the ride in the ride log (`rides.sqlite`), written in batches on a queue of its own
/// (the pipeline never waits for the SD card): a batch goes out every `batchSeconds` of GPS time, and at an
/// orderly stop. A power cut loses at most the batch in memory. Write errors are logged once per change.
public final class RideLogSink: EffectSink, @unchecked Sendable {
    public let batchSeconds: Double
    private let store: SQLiteRideStore
    private let logger: Logger
    private let queue = DispatchQueue(label: "ridegate.rides")
    private var pending: [RidePoint] = []
    private var lastError: String?

    public init(store: SQLiteRideStore, logger: Logger, batchSeconds: Double = 5) {
        self.store = store
        self.logger = logger
        self.batchSeconds = batchSeconds
    }

    public func apply(_ effect: Effect) {
        guard case .recordPoint(let point) = effect else { return }
        queue.async { [self] in
            pending.append(point)
            if let first = pending.first, point.time - first.time >= batchSeconds || point.time < first.time { flush() }
        }
    }

    public func shutdown() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                flush()
                done.resume()
            }
        }
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        do {
            try store.record(pending)
            if lastError != nil { logger.notice("the ride log can be written again") }
            lastError = nil
            pending.removeAll()
        } catch {
            if lastError != error.description {
                logger.error("cannot write the ride log; points wait in memory", [("error", error.description)])
                lastError = error.description
            }
            // Bounded: an hour of 10 Hz fixes, then the oldest go (the ride summary on MQTT still has the totals).
            if pending.count > 36_000 { pending.removeFirst(pending.count - 36_000) }
        }
    }
}
