import RidegateCore
import RidegateLinux

/// Replays the remembered position once at start, so the sun is published before the first fix.
package struct RememberedPositionSource: EventSource {
    package let name = "state"
    let store: StateStoreSink
    let clock: SystemClock

    package init(store: StateStoreSink, clock: SystemClock) {
        self.store = store
        self.clock = clock
    }

    package func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        guard let position = store.lastPosition() else { return }
        emit(.lastKnownPosition(latitude: position.latitude, longitude: position.longitude, at: clock.now()))
    }
}
