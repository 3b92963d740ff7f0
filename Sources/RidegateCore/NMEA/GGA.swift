/// GGA, Global Positioning System Fix Data (NMEA 0183 v4.11 §8.3.39).
///
///     $GPGGA,172814.0,3723.46587704,N,12202.26957864,W,2,6,1.2,18.893,M,-25.669,M,2.0,0031*4F
///            time     lat             lon              │ │ hdop alt(MSL)  geoid sep  age station
///                                                      quality (0 = no fix) satellites used
public struct GGA: Sendable, Equatable {
    public var timeOfDay: Double?
    public var latitude: Double?
    public var longitude: Double?
    /// 0 invalid, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 dead reckoning, 7 manual, 8 simulator.
    public var quality: Int
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var altitudeMSL: Double?
    public var geoidSeparation: Double?

    /// Quality 0 is no fix. So is a fix "using" zero satellites: the Hemisphere receivers in gpsd's
    /// captures keep sending quality 1 with `00` satellites after losing the sky (stale, coasting data).
    public var isValid: Bool { quality != 0 && satellitesUsed != 0 }

    static func decode(_ frame: NMEAFrame) -> GGA {
        GGA(
            timeOfDay: NMEAField.timeOfDay(frame.field(1)),
            latitude: NMEAField.latitude(frame.field(2), frame.field(3)),
            longitude: NMEAField.longitude(frame.field(4), frame.field(5)),
            quality: NMEAField.integer(frame.field(6)) ?? 0,
            satellitesUsed: NMEAField.integer(frame.field(7)),
            hdop: NMEAField.decimal(frame.field(8)),
            altitudeMSL: NMEAField.decimal(frame.field(9)),
            geoidSeparation: NMEAField.decimal(frame.field(11)))
    }
}
