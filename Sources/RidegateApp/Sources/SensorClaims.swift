import RidegateCore
import RidegateLinux

/// The devices the gateway's sensor sources hold, shared among them: two `auto` straps (a tandem) must take
/// two different straps, and a power meter that also advertises Cycling Speed and Cadence is one device,
/// one connection, whichever source reached it first.
public final class SensorClaims: Sendable {
    private let held = Locked<Set<[UInt8]>>([])

    public init() {}

    public func isClaimed(_ address: BluetoothAddress) -> Bool {
        held.withLock { $0.contains(address.bytes) }
    }

    /// Claims a device; false when another source holds it.
    public func claim(_ address: BluetoothAddress) -> Bool {
        held.withLock { $0.insert(address.bytes).inserted }
    }

    public func release(_ address: BluetoothAddress) {
        _ = held.withLock { $0.remove(address.bytes) }
    }
}
