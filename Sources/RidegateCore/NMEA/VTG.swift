/// VTG, Course Over Ground and Ground Speed (NMEA 0183 v4.11 §8.3.98).
///
///     $GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A*25     (2.3 and later: unit letters, mode)
///     $GPVTG,054.7,034.4,005.5,010.2*4A               (pre-2.0 receivers: no unit letters)
public struct VTG: Sendable, Equatable {
    public var trackDegrees: Double?
    public var speedMetersPerSecond: Double?
    public var modeIndicator: Character?

    public var isValid: Bool { modeIndicator != "N" && (trackDegrees != nil || speedMetersPerSecond != nil) }

    static func decode(_ frame: NMEAFrame) -> VTG {
        if frame.field(2).first == UInt8(ascii: "T") || frame.fieldCount >= 9 {
            let knots = NMEAField.decimal(frame.field(5)).map { $0 * Units.metersPerSecondPerKnot }
            let kmh = NMEAField.decimal(frame.field(7)).map { $0 * Units.metersPerSecondPerKmh }
            return VTG(trackDegrees: NMEAField.decimal(frame.field(1)),
                       speedMetersPerSecond: knots ?? kmh,
                       modeIndicator: NMEAField.character(frame.field(9)))
        }
        return VTG(trackDegrees: NMEAField.decimal(frame.field(1)),
                   speedMetersPerSecond: NMEAField.decimal(frame.field(3)).map { $0 * Units.metersPerSecondPerKnot },
                   modeIndicator: nil)
    }
}
