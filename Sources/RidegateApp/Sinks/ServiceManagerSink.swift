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
