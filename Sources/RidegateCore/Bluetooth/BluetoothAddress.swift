/// A Bluetooth device address with its LE address type (Core Spec v5.4 Vol 6 Part B §1.3).
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case `public`
        case random
    }

    /// Most significant byte first, as written: AA:BB:CC:DD:EE:FF.
    public var bytes: [UInt8]
    public var kind: Kind

    public init(bytes: [UInt8], kind: Kind) {
        self.bytes = bytes
        self.kind = kind
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (case-insensitive).
    public init?(_ text: String, kind: Kind = .public) {
        let parts = text.split(separator: ":")
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let b = UInt8(part, radix: 16) else { return nil }
            bytes.append(b)
        }
        self.init(bytes: bytes, kind: kind)
    }

    public var description: String {
        bytes.map { b in
            let hex = String(b, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// A topic-safe id for MQTT (`f1f2f3f4f5f6`).
    public var topicID: String { bytes.hexString }
}
