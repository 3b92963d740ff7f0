import RidegateCore
import RidegateLinux

/// Asks the pipeline, at half the watchdog interval, to prove it still moves: the tick flows through the
/// same stream as every reading, so a stuck pipeline stops the pings and systemd restarts the daemon.
struct WatchdogSource: EventSource {
    let name = "watchdog"
    let interval: Double
    let clock: SystemClock
    let loop: EventLoop

    func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        while !Task.isCancelled {
            emit(.watchdogTick(at: clock.now()))
            await loop.sleep(seconds: interval)
        }
    }
}
