/// GNS, GNSS Fix Data (NMEA 0183 v4.11 §8.3.45): GGA for multi-constellation receivers.
///
///     $GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,*70
///            time      lat          lon           │  │  hdop alt   geoid sep
///                                                 │  satellites used
///                                                 one mode letter per constellation (GP, GL, GA, GB…): N = no fix
public struct GNS: Sendable, Equatable {
    public var timeOfDay: Double?
    public var latitude: Double?
    public var longitude: Double?
    public var modeIndicators: String
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var altitudeMSL: Double?
    public var navigationStatus: Character?

    /// Valid when any constellation has a fix (any letter other than N).
    public var isValid: Bool { modeIndicators.contains { $0 != "N" } }

    static func decode(_ frame: NMEAFrame) -> GNS {
        GNS(
            timeOfDay: NMEAField.timeOfDay(frame.field(1)),
            latitude: NMEAField.latitude(frame.field(2), frame.field(3)),
            longitude: NMEAField.longitude(frame.field(4), frame.field(5)),
            modeIndicators: String(decoding: frame.field(6), as: UTF8.self),
            satellitesUsed: NMEAField.integer(frame.field(7)),
            hdop: NMEAField.decimal(frame.field(8)),
            altitudeMSL: NMEAField.decimal(frame.field(9)),
            navigationStatus: NMEAField.character(frame.field(13)))
    }
}
