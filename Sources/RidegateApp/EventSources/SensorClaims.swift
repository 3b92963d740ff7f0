import RidegateCore
import RidegateLinux

/// The devices the gateway's sensor sources hold, shared among them: two `auto` straps (a tandem) must take
/// two different straps, and a power meter that also advertises Cycling Speed and Cadence is one device,
/// one connection, and it is the power meter's: a speed/cadence source passes over a device that also
/// advertises Cycling Power while a power source is configured (otherwise whichever source found it first
/// would take it, and a separate speed sensor could be left unused).
public final class SensorClaims: Sendable {
    private let held = Locked<Set<[UInt8]>>([])
    /// The kinds some source looks for.
    public let configuredKinds: Set<SensorProfile>

    public init(configuredKinds: Set<SensorProfile> = Set(SensorProfile.builtIn)) {
        self.configuredKinds = configuredKinds
    }

    /// Whether a device found by `auto` or a name pattern is for a source of another kind: it advertises a
    /// configured kind that comes first (power, then speed/cadence, then heart rate).
    public func belongsElsewhere(_ advertising: AdvertisingData, searchedAs kind: SensorProfile) -> Bool {
        advertising.sensorKinds.contains { $0 != kind && configuredKinds.contains($0) && $0.precedence < kind.precedence }
    }

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
