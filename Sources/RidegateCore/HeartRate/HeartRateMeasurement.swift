/// Heart Rate Measurement, characteristic 0x2A37 (Heart Rate Service 1.0 §3.1; GATT Specification
/// Supplement §3.113). All multi-byte fields are little-endian.
///
///     flags  bit 0   heart rate value format: 0 UINT8, 1 UINT16
///            bit 1-2 sensor contact: 0/1 not supported, 2 supported but not detected, 3 detected
///            bit 3   energy expended present (UINT16, kJ)
///            bit 4   RR intervals present (UINT16 each, 1/1024 s)
///            bit 5-7 reserved for future use: ignored
public struct HeartRateMeasurement: Sendable, Equatable {
    public enum Format: String, Sendable { case uint8, uint16 }

    public enum SensorContact: String, Sendable {
        case notSupported = "not_supported"
        case notDetected = "not_detected"
        case detected
    }

    public var format: Format
    public var beatsPerMinute: Int
    public var sensorContact: SensorContact
    /// Cumulative energy since the strap's last reset; 0xFFFF means "at least 65535".
    public var energyExpendedKilojoules: Int?
    /// RR intervals in the strap's raw unit, 1/1024 s.
    public var rrIntervalsRaw: [UInt16]
    public var reservedFlags: UInt8

    public init(format: Format = .uint8, beatsPerMinute: Int, sensorContact: SensorContact = .notSupported,
                energyExpendedKilojoules: Int? = nil, rrIntervalsRaw: [UInt16] = [], reservedFlags: UInt8 = 0) {
        self.format = format
        self.beatsPerMinute = beatsPerMinute
        self.sensorContact = sensorContact
        self.energyExpendedKilojoules = energyExpendedKilojoules
        self.rrIntervalsRaw = rrIntervalsRaw
        self.reservedFlags = reservedFlags
    }

    /// RR intervals in milliseconds (raw × 1000 / 1024).
    public var rrIntervalsMilliseconds: [Double] { rrIntervalsRaw.map { Double($0) * 1000 / 1024 } }

    /// Decodes one notification value.
    ///
    /// Two cases the spec leaves open are accepted rather than thrown away, because a reading a rider
    /// needs sits in the same payload: the RR flag set with no RR values (an empty list), and bytes
    /// after the heart rate with no flag announcing them (ignored).
    public init(decoding bytes: some Collection<UInt8>) throws(HeartRateMeasurementError) {
        let value = Array(bytes)
        guard let flags = value.first else { throw HeartRateMeasurementError(kind: .empty, bytes: value) }
        var cursor = 1

        format = flags & 0x01 == 0 ? .uint8 : .uint16
        let hrLength = format == .uint8 ? 1 : 2
        guard value.count >= cursor + hrLength else {
            throw HeartRateMeasurementError(kind: .truncatedHeartRate, bytes: value)
        }
        beatsPerMinute = format == .uint8 ? Int(value[cursor]) : Int(Self.uint16(value, at: cursor))
        cursor += hrLength

        switch (flags >> 1) & 0x03 {
        case 2: sensorContact = .notDetected
        case 3: sensorContact = .detected
        default: sensorContact = .notSupported
        }

        if flags & 0x08 != 0 {
            guard value.count >= cursor + 2 else {
                throw HeartRateMeasurementError(kind: .truncatedEnergyExpended, bytes: value)
            }
            energyExpendedKilojoules = Int(Self.uint16(value, at: cursor))
            cursor += 2
        } else {
            energyExpendedKilojoules = nil
        }

        var rr: [UInt16] = []
        if flags & 0x10 != 0 {
            guard (value.count - cursor) % 2 == 0 else {
                throw HeartRateMeasurementError(kind: .rrOddLength, bytes: value)
            }
            rr.reserveCapacity((value.count - cursor) / 2)
            while cursor + 1 < value.count {
                rr.append(Self.uint16(value, at: cursor))
                cursor += 2
            }
        }
        rrIntervalsRaw = rr
        reservedFlags = flags & 0xE0
    }

    @inline(__always)
    private static func uint16(_ bytes: [UInt8], at index: Int) -> UInt16 {
        UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    /// The payload a strap would send for this measurement (used by the demo's simulated strap).
    public var encoded: [UInt8] {
        var flags: UInt8 = reservedFlags & 0xE0
        if format == .uint16 { flags |= 0x01 }
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags |= 0x04
        case .detected: flags |= 0x06
        }
        if energyExpendedKilojoules != nil { flags |= 0x08 }
        if !rrIntervalsRaw.isEmpty { flags |= 0x10 }
        var bytes: [UInt8] = [flags]
        let bpm = UInt16(clamping: beatsPerMinute)
        if format == .uint8 {
            bytes.append(UInt8(clamping: bpm))
        } else {
            bytes += [UInt8(bpm & 0xFF), UInt8(bpm >> 8)]
        }
        if let energy = energyExpendedKilojoules {
            let e = UInt16(clamping: energy)
            bytes += [UInt8(e & 0xFF), UInt8(e >> 8)]
        }
        for rr in rrIntervalsRaw { bytes += [UInt8(rr & 0xFF), UInt8(rr >> 8)] }
        return bytes
    }
}

/// Why a 0x2A37 value could not be decoded, with the bytes that were received.
public struct HeartRateMeasurementError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case empty
        case truncatedHeartRate = "truncated_heart_rate"
        case truncatedEnergyExpended = "truncated_energy_expended"
        case rrOddLength = "rr_odd_length"
    }

    public var kind: Kind
    public var bytes: [UInt8]

    public var description: String {
        let hex = bytes.isEmpty ? "(no bytes)" : bytes.hexString
        switch kind {
        case .empty: return "empty heart rate measurement: the value has no flags byte"
        case .truncatedHeartRate: return "heart rate measurement \(hex) ends before its heart rate value"
        case .truncatedEnergyExpended: return "heart rate measurement \(hex) announces energy expended but ends before it"
        case .rrOddLength: return "heart rate measurement \(hex) has an odd number of RR interval bytes"
        }
    }
}
