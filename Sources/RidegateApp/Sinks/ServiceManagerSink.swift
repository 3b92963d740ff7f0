import RidegateCore
import RidegateLinux

/// Tells systemd (Type=notify) when the gateway is ready, that its pipeline is alive, and when it stops.
public struct ServiceManagerSink: EffectSink {
    let notifier: ServiceNotifier

    public init(notifier: ServiceNotifier) { self.notifier = notifier }

    public func apply(_ effect: Effect) {
        switch effect {
        case .serviceReady: notifier.notify("READY=1\nSTATUS=running")
        case .serviceAlive: notifier.notify("WATCHDOG=1")
        default: break
        }
    }

    public func shutdown() async {
        notifier.notify("STOPPING=1")
    }
}

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
