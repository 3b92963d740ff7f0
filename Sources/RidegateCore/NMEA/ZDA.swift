/// ZDA, Time and Date (NMEA 0183 v4.11 §8.3.106): the full UTC date, once per second on receivers that send it.
///
///     $GPZDA,160012.71,11,03,2004,-1,00*7D
///            time      dd mm yyyy local zone h, min
public struct ZDA: Sendable, Equatable {
    public var timeOfDay: Double?
    public var date: CivilDate?

    static func decode(_ frame: NMEAFrame) -> ZDA {
        var date: CivilDate?
        if let day = NMEAField.integer(frame.field(2)), let month = NMEAField.integer(frame.field(3)),
           let year = NMEAField.integer(frame.field(4)) {
            date = CivilDate(validatingYear: year, month: month, day: day)
        }
        return ZDA(timeOfDay: NMEAField.timeOfDay(frame.field(1)), date: date)
    }
}
