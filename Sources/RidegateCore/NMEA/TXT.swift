/// TXT, Text Transmission (NMEA 0183 v4.11 §8.3.92): receivers announce firmware, antenna status and
/// warnings this way. Logged, never used.
///
///     $GPTXT,01,01,02,ANTSTATUS=OK*3B
///            │  │  │  text
///            │  │  type: 00 error, 01 warning, 02 notice, 07 user
///            total, number
public struct TXT: Sendable, Equatable {
    public var type: Int?
    public var text: String

    static func decode(_ frame: NMEAFrame) -> TXT {
        TXT(type: NMEAField.integer(frame.field(3)), text: String(decoding: frame.field(4), as: UTF8.self))
    }
}
