/// CSC Measurement (0x2A5B), Cycling Speed and Cadence Service 0x1816 (GATT Specification Supplement §3.59):
///
///     flags (UINT8)  bit 0 wheel revolution data present, bit 1 crank revolution data present
///     [wheel]        cumulative wheel revolutions UINT32, last wheel event time UINT16 (1/1024 s)
///     [crank]        cumulative crank revolutions UINT16, last crank event time UINT16 (1/1024 s)
///
/// A speed-only sensor sends wheel data, a cadence-only sensor crank data, a combined one both.
public struct CyclingSpeedCadenceMeasurement: Sendable, Equatable {
    public var wheel: RevolutionData?
    public var crank: RevolutionData?

    public init(wheel: RevolutionData? = nil, crank: RevolutionData? = nil) {
        self.wheel = wheel
        self.crank = crank
    }

    public init(decoding bytes: some Collection<UInt8>) throws(CyclingMeasurementError) {
        let value = Array(bytes)
        func fail(_ kind: CyclingMeasurementError.Kind) -> CyclingMeasurementError {
            CyclingMeasurementError(kind: kind, characteristic: "CSC measurement", bytes: value)
        }
        guard let flags = value.first else { throw fail(.empty) }
        let expected = 1 + (flags & 0x01 != 0 ? 6 : 0) + (flags & 0x02 != 0 ? 4 : 0)
        guard value.count >= expected else { throw fail(.truncated) }
        guard value.count == expected else { throw fail(.unexpectedTrailingBytes) }
        var reader = ByteReader(value, from: 1)
        if flags & 0x01 != 0 {
            wheel = RevolutionData(revolutions: reader.u32(), eventTime: reader.u16(), ticksPerSecond: 1024, counterBits: 32)
        }
        if flags & 0x02 != 0 {
            crank = RevolutionData(revolutions: UInt32(reader.u16()), eventTime: reader.u16(), ticksPerSecond: 1024, counterBits: 16)
        }
    }

    /// The value a sensor would send (the demo's simulated sensors).
    public var encoded: [UInt8] {
        var bytes: [UInt8] = [(wheel != nil ? 0x01 : 0) | (crank != nil ? 0x02 : 0)]
        if let wheel { bytes += ByteWriter.u32(wheel.revolutions) + ByteWriter.u16(wheel.eventTime) }
        if let crank { bytes += ByteWriter.u16(UInt16(truncatingIfNeeded: crank.revolutions)) + ByteWriter.u16(crank.eventTime) }
        return bytes
    }
}
