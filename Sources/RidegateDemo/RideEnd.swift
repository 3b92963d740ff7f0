import RidegateApp
import RidegateCore
import RidegateLinux

/// When the demo's ride is over for its sensors: once the replayed receiver's last fix has been read. A replay
/// that lags its schedule (a busy machine; the reader behind the writer at 100×) still has fixes to come when the
/// sensors' own schedule ends; sensors that stopped then would leave those points without heart rate, cadence or
/// power, and every demo's file would end without them. So a sensor holds its last value until this says so.
final class RideEnd: Sendable {
    private let over = Locked(false)

    var isOver: Bool { over.withLock { $0 } }

    func finish() {
        over.withLock { $0 = true }
    }

    /// `receiver` as a source that ends the ride for the sensors once it has ended, and the ride in the ride log
    /// once it played the whole recording (the ride is over: its files are written, and it is uploaded).
    func ending(with receiver: any EventSource, clock: SystemClock) -> any EventSource {
        Receiver(source: receiver, end: self, clock: clock)
    }

    private struct Receiver: EventSource {
        let source: any EventSource
        let end: RideEnd
        let clock: SystemClock
        var name: String { source.name }

        func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
            await source.run(emit: emit)
            end.finish()
            // Not when the demo was stopped mid-ride: a restart within new_ride_after_min would carry the ride on.
            if !Task.isCancelled { emit(.recordingEnded(at: clock.now())) }
        }
    }
}
