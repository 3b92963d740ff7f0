import Glibc

/// A descriptor several parties use and one closes (a read source at end of file, while a session may still
/// send or hang up). Once closed, its number can belong to a new socket (another sensor's, the broker's), so a
/// late send(2) or shutdown(2) would hit that one: every use goes through here, and none happens after close.
public final class SharedDescriptor: Sendable {
    private let state: Locked<Int32?>

    public init(_ descriptor: FileDescriptor) {
        state = Locked(descriptor.rawValue)
    }

    /// Runs `body` with the descriptor while it is open (holding it open meanwhile); nil once closed.
    public func use<R>(_ body: (FileDescriptor) -> R) -> R? {
        state.withLock { fd in fd.map { body(FileDescriptor(rawValue: $0)) } }
    }

    /// close(2), once; later uses do nothing.
    public func close() {
        state.withLock { fd in
            if let open = fd { _ = Glibc.close(open) }
            fd = nil
        }
    }

    public var isOpen: Bool { state.withLock { $0 != nil } }
}
