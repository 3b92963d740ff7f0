/// GSV, GNSS Satellites in View (NMEA 0183 v4.11 §8.3.51). One sentence of a group; the first says how
/// many satellites are in view for this talker (and, from NMEA 4.1, this signal).
///
///     $GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00,1*66
///            │ │ │  four blocks of: id, elevation°, azimuth°, SNR dB          signal id (4.1)
///            │ │ satellites in view
///            │ sentence number
///            number of sentences
public struct GSV: Sendable, Equatable {
    public var sentenceCount: Int?
    public var sentenceNumber: Int?
    public var satellitesInView: Int?
    /// NMEA 4.1 signal id (after the last satellite block), when present.
    public var signalID: Int?

    static func decode(_ frame: NMEAFrame) -> GSV {
        let fields = frame.fieldCount - 1
        // 3 header fields + 4 per satellite; one extra field means the 4.1 signal id.
        let signal = fields > 3 && (fields - 3) % 4 == 1 ? NMEAField.integer(frame.field(fields)) : nil
        return GSV(sentenceCount: NMEAField.integer(frame.field(1)), sentenceNumber: NMEAField.integer(frame.field(2)),
                   satellitesInView: NMEAField.integer(frame.field(3)), signalID: signal)
    }
}
