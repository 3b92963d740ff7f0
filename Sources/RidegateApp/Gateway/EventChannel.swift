import RidegateLinux

/// The sources' events on their way to the core: any task or thread may send, one consumer takes them in
/// order; `finish()` ends it once what was sent has been taken. Unbounded. A `Handoff` (specialised here for
/// the gateway's events) that never ends with an error.
final class EventChannel<Element: Sendable>: Sendable {
    private let handoff = Handoff<Element>()

    /// Hands `element` to the waiting consumer, or keeps it until the consumer asks; dropped after `finish()`.
    func send(_ element: Element) { handoff.send(element) }

    /// No more events: the consumer gets what is buffered, then nil.
    func finish() { handoff.finish() }

    /// Whether the consumer is parked in `next()` (tests wait for it rather than sleep).
    var consumerIsWaiting: Bool { handoff.consumerIsWaiting }

    /// The next event, or nil once finished and drained, or when the consumer's task is cancelled.
    func next() async -> Element? {
        // Only `finish(throwing:)` makes a handoff throw, and nothing here calls it.
        try? await handoff.next()
    }
}
