/// Cycling Power Measurement (0x2A63), Cycling Power Service 0x1818 (GATT Specification Supplement §3.65).
/// After the flags (UINT16) and the instantaneous power (SINT16, W), each field is present when its flag is
/// set, in this order:
///
///     bit 0   pedal power balance          UINT8, 1/2 %   (bit 1: reference is the left pedal, else unknown)
///     bit 2   accumulated torque           UINT16, 1/32 Nm (bit 3: crank-based, else wheel-based)
///     bit 4   wheel revolution data        UINT32 revolutions, UINT16 last event time (1/2048 s: not CSC's 1/1024)
///     bit 5   crank revolution data        UINT16 revolutions, UINT16 last event time (1/1024 s)
///     bit 6   extreme force magnitudes     SINT16 max, SINT16 min, N
///     bit 7   extreme torque magnitudes    SINT16 max, SINT16 min, 1/32 Nm
///     bit 8   extreme angles               UINT12 max (low 12 bits), UINT12 min, degrees: 3 bytes
///     bit 9   top dead spot angle          UINT16, degrees
///     bit 10  bottom dead spot angle       UINT16, degrees
///     bit 11  accumulated energy           UINT16, kJ
///     bit 12  offset compensation indicator (no field)
public struct CyclingPowerMeasurement: Sendable, Equatable {
    public enum BalanceReference: String, Sendable { case left, unknown }
    public enum TorqueSource: String, Sendable { case wheel, crank }

    public var powerWatts: Int
    /// Percent of the power from the reference pedal.
    public var pedalPowerBalancePercent: Double?
    public var pedalPowerBalanceReference: BalanceReference?
    public var accumulatedTorqueNewtonMetres: Double?
    public var accumulatedTorqueSource: TorqueSource?
    public var wheel: RevolutionData?
    public var crank: RevolutionData?
    public var maximumForceNewtons: Int?
    public var minimumForceNewtons: Int?
    public var maximumTorqueNewtonMetres: Double?
    public var minimumTorqueNewtonMetres: Double?
    public var maximumAngleDegrees: Int?
    public var minimumAngleDegrees: Int?
    public var topDeadSpotDegrees: Int?
    public var bottomDeadSpotDegrees: Int?
    public var accumulatedEnergyKilojoules: Int?
    public var offsetCompensation: Bool

    public init(powerWatts: Int, wheel: RevolutionData? = nil, crank: RevolutionData? = nil) {
        self.powerWatts = powerWatts
        self.wheel = wheel
        self.crank = crank
        offsetCompensation = false
    }

    public init(decoding bytes: some Collection<UInt8>) throws(CyclingMeasurementError) {
        let value = Array(bytes)
        func fail(_ kind: CyclingMeasurementError.Kind) -> CyclingMeasurementError {
            CyclingMeasurementError(kind: kind, characteristic: "cycling power measurement", bytes: value)
        }
        guard !value.isEmpty else { throw fail(.empty) }
        guard value.count >= 4 else { throw fail(.truncated) }
        var reader = ByteReader(value)
        let flags = reader.u16()
        // The length the flags announce, checked once: every read below is then in bounds.
        let expected = 4 + Self.fieldSizes.reduce(0) { flags & (1 << $1.bit) != 0 ? $0 + $1.size : $0 }
        guard value.count >= expected else { throw fail(.truncated) }
        guard value.count == expected else { throw fail(.unexpectedTrailingBytes) }
        func present(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }

        powerWatts = Int(reader.i16())
        if present(0) {
            pedalPowerBalancePercent = Double(reader.u8()) / 2
            pedalPowerBalanceReference = present(1) ? .left : .unknown
        }
        if present(2) {
            accumulatedTorqueNewtonMetres = Double(reader.u16()) / 32
            accumulatedTorqueSource = present(3) ? .crank : .wheel
        }
        if present(4) { wheel = RevolutionData(revolutions: reader.u32(), eventTime: reader.u16(), ticksPerSecond: 2048, counterBits: 32) }
        if present(5) { crank = RevolutionData(revolutions: UInt32(reader.u16()), eventTime: reader.u16(), ticksPerSecond: 1024, counterBits: 16) }
        if present(6) {
            maximumForceNewtons = Int(reader.i16())
            minimumForceNewtons = Int(reader.i16())
        }
        if present(7) {
            maximumTorqueNewtonMetres = Double(reader.i16()) / 32
            minimumTorqueNewtonMetres = Double(reader.i16()) / 32
        }
        if present(8) {
            let angles = reader.u24()
            maximumAngleDegrees = Int(angles & 0xFFF)
            minimumAngleDegrees = Int(angles >> 12)
        }
        if present(9) { topDeadSpotDegrees = Int(reader.u16()) }
        if present(10) { bottomDeadSpotDegrees = Int(reader.u16()) }
        if present(11) { accumulatedEnergyKilojoules = Int(reader.u16()) }
        offsetCompensation = present(12)
    }

    /// Bytes each optional field takes, by its flag bit (bits 1, 3 and 12 only qualify other fields).
    static let fieldSizes: [(bit: Int, size: Int)] = [(0, 1), (2, 2), (4, 6), (5, 4), (6, 4), (7, 4), (8, 3), (9, 2), (10, 2), (11, 2)]

    /// The value as a power meter sends it, every present field with its flag (the demo's simulated meter;
    /// decoding it gives this value back, which the fuzzer checks).
    public var encoded: [UInt8] {
        var flags: UInt16 = 0
        var fields: [UInt8] = []
        if let balance = pedalPowerBalancePercent {
            flags |= 0x0001 | (pedalPowerBalanceReference == .left ? 0x0002 : 0)
            fields.append(UInt8(clamping: Int((balance * 2).rounded())))
        }
        if let torque = accumulatedTorqueNewtonMetres {
            flags |= 0x0004 | (accumulatedTorqueSource == .crank ? 0x0008 : 0)
            fields += ByteWriter.u16(UInt16(clamping: Int((torque * 32).rounded())))
        }
        if let wheel {
            flags |= 0x0010
            fields += ByteWriter.u32(wheel.revolutions) + ByteWriter.u16(wheel.eventTime)
        }
        if let crank {
            flags |= 0x0020
            fields += ByteWriter.u16(UInt16(truncatingIfNeeded: crank.revolutions)) + ByteWriter.u16(crank.eventTime)
        }
        if let maximum = maximumForceNewtons, let minimum = minimumForceNewtons {
            flags |= 0x0040
            fields += ByteWriter.i16(Int16(clamping: maximum)) + ByteWriter.i16(Int16(clamping: minimum))
        }
        if let maximum = maximumTorqueNewtonMetres, let minimum = minimumTorqueNewtonMetres {
            flags |= 0x0080
            fields += ByteWriter.i16(Int16(clamping: Int((maximum * 32).rounded()))) + ByteWriter.i16(Int16(clamping: Int((minimum * 32).rounded())))
        }
        if let maximum = maximumAngleDegrees, let minimum = minimumAngleDegrees {
            flags |= 0x0100
            let angles = UInt32(clamping: maximum) & 0xFFF | (UInt32(clamping: minimum) & 0xFFF) << 12
            fields += [UInt8(angles & 0xFF), UInt8((angles >> 8) & 0xFF), UInt8(angles >> 16)]
        }
        if let top = topDeadSpotDegrees {
            flags |= 0x0200
            fields += ByteWriter.u16(UInt16(clamping: top))
        }
        if let bottom = bottomDeadSpotDegrees {
            flags |= 0x0400
            fields += ByteWriter.u16(UInt16(clamping: bottom))
        }
        if let energy = accumulatedEnergyKilojoules {
            flags |= 0x0800
            fields += ByteWriter.u16(UInt16(clamping: energy))
        }
        if offsetCompensation { flags |= 0x1000 }
        return ByteWriter.u16(flags) + ByteWriter.i16(Int16(clamping: powerWatts)) + fields
    }
}
