/// Work set to run later, which can be called off. Cancelling work that already ran does nothing.
public struct DeferredWork: Sendable {
    private let cancelling: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) {
        cancelling = cancel
    }

    public func cancel() { cancelling() }
}
