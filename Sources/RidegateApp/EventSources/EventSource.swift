import RidegateCore

/// Something that observes the world and reports it: a GPS, a strap. `run` returns when its task is
/// cancelled (shutdown) or when its input ends for good (a replayed file).
public protocol EventSource: Sendable {
    var name: String { get }
    func run(emit: @escaping @Sendable (SourceEvent) -> Void) async
}
