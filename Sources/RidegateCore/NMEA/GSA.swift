/// GSA, GNSS DOP and Active Satellites (NMEA 0183 v4.11 §8.3.46).
///
///     $GNGSA,A,3,80,71,73,79,69,,,,,,,,1.83,1.09,1.47,2*0C
///            │ │ 12 satellite ids         pdop hdop vdop system id (4.1)
///            │ fix type: 1 none, 2 2D, 3 3D
///            selection: A auto, M manual
public struct GSA: Sendable, Equatable {
    public var fixType: Int?
    public var satellites: [Int]
    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?
    public var systemID: Int?

    static func decode(_ frame: NMEAFrame) -> GSA {
        var satellites: [Int] = []
        for index in 3...14 {
            if let id = NMEAField.integer(frame.field(index)) { satellites.append(id) }
        }
        return GSA(
            fixType: NMEAField.integer(frame.field(2)),
            satellites: satellites,
            pdop: NMEAField.decimal(frame.field(15)),
            hdop: NMEAField.decimal(frame.field(16)),
            vdop: NMEAField.decimal(frame.field(17)),
            systemID: NMEAField.integer(frame.field(18)))
    }
}
