/// RMC, Recommended Minimum Specific GNSS Data (NMEA 0183 v4.11 §8.3.74).
///
///     $GNRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A,V*57
///            time      │ lat        │ lon         │ knots track date   │ │ │ nav status (4.1)
///                      status A=valid, V=invalid                         mode (2.3): N = not valid
public struct RMC: Sendable, Equatable {
    public var timeOfDay: Double?
    public var isValid: Bool
    public var latitude: Double?
    public var longitude: Double?
    public var speedMetersPerSecond: Double?
    public var trackDegrees: Double?
    public var date: CivilDate?
    public var modeIndicator: Character?
    public var navigationStatus: Character?

    static func decode(_ frame: NMEAFrame) -> RMC {
        let mode = NMEAField.character(frame.field(12))
        // NMEA 2.3 mode "N" (data not valid) overrides an "A" status: seen on SiRF-III cold starts.
        let valid = frame.field(2).first == UInt8(ascii: "A") && mode != "N"
        return RMC(
            timeOfDay: NMEAField.timeOfDay(frame.field(1)),
            isValid: valid,
            latitude: NMEAField.latitude(frame.field(3), frame.field(4)),
            longitude: NMEAField.longitude(frame.field(5), frame.field(6)),
            speedMetersPerSecond: NMEAField.decimal(frame.field(7)).map { $0 * Units.metersPerSecondPerKnot },
            trackDegrees: NMEAField.decimal(frame.field(8)),
            date: NMEAField.dayMonthYear(frame.field(9)),
            modeIndicator: mode,
            navigationStatus: NMEAField.character(frame.field(13)))
    }
}

enum Units {
    /// One knot is exactly 1852 m per hour.
    static let metersPerSecondPerKnot = 1852.0 / 3600.0
    static let metersPerSecondPerKmh = 1000.0 / 3600.0
}
