/// GLL, Geographic Position - Latitude/Longitude (NMEA 0183 v4.11 §8.3.41).
///
///     $GPGLL,4916.45,N,12311.12,W,225444,A,A*5C
///            lat       lon        time   │ mode (2.3): N = not valid
///                                        status A=valid, V=invalid
public struct GLL: Sendable, Equatable {
    public var latitude: Double?
    public var longitude: Double?
    public var timeOfDay: Double?
    public var isValid: Bool
    public var modeIndicator: Character?

    static func decode(_ frame: NMEAFrame) -> GLL {
        let mode = NMEAField.character(frame.field(7))
        return GLL(
            latitude: NMEAField.latitude(frame.field(1), frame.field(2)),
            longitude: NMEAField.longitude(frame.field(3), frame.field(4)),
            timeOfDay: NMEAField.timeOfDay(frame.field(5)),
            // Pre-2.0 receivers (Garmin 48) end the sentence before the status: no status is not "valid".
            isValid: frame.field(6).first == UInt8(ascii: "A") && mode != "N",
            modeIndicator: mode)
    }
}
