import Dispatch

/// DispatchSource.cancel() is thread-safe, but the protocol type is not marked Sendable.
final class SourceCanceller: @unchecked Sendable {
    private let source: any DispatchSourceProtocol
    init(_ source: any DispatchSourceProtocol) { self.source = source }
    func cancel() { source.cancel() }
}
