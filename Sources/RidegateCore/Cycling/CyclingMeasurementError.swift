/// Why a cycling measurement value (0x2A5B, 0x2A63) could not be decoded, with the bytes received.
public struct CyclingMeasurementError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No flags.
        case empty
        /// A field the flags announce is cut off.
        case truncated
        /// Bytes after the last announced field: the flags and the value disagree, so neither is trusted.
        case unexpectedTrailingBytes = "unexpected_trailing_bytes"
    }

    public var kind: Kind
    /// `CSC measurement` or `cycling power measurement`, for the message.
    public var characteristic: String
    public var bytes: [UInt8]

    public var description: String {
        let hex = bytes.isEmpty ? "(no bytes)" : bytes.hexString
        switch kind {
        case .empty: return "empty \(characteristic): the value has no flags"
        case .truncated: return "\(characteristic) \(hex) ends before a field its flags announce"
        case .unexpectedTrailingBytes: return "\(characteristic) \(hex) has bytes after the last field its flags announce"
        }
    }
}

/// A cumulative revolution counter and the time of its last event, as a sensor reports them.
public struct RevolutionData: Sendable, Equatable {
    /// Cumulative revolutions (UINT32 for wheels, UINT16 for cranks; wraps).
    public var revolutions: UInt32
    /// Time of the last revolution event in `ticksPerSecond` units (UINT16; wraps every 64 s or 32 s).
    public var eventTime: UInt16
    /// 1024 (CSC wheel and crank, power crank) or 2048 (power wheel).
    public var ticksPerSecond: Double
    /// The counter's width in bits (32 or 16): where it wraps.
    public var counterBits: Int

    public init(revolutions: UInt32, eventTime: UInt16, ticksPerSecond: Double, counterBits: Int) {
        self.revolutions = revolutions
        self.eventTime = eventTime
        self.ticksPerSecond = ticksPerSecond
        self.counterBits = counterBits
    }

    public var eventTimeSeconds: Double { Double(eventTime) / ticksPerSecond }
}
