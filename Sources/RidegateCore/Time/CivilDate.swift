/// A proleptic Gregorian calendar date, converted to and from days since 1970-01-01 with Howard Hinnant's
/// `days_from_civil` algorithm (exact for every date, no tables, no Foundation).
public struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Nil unless month and day name a real day of that year.
    public init?(validatingYear year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public init(daysSince1970 days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    public var daysSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.daysSince1970 < rhs.daysSince1970 }

    /// `YYYY-MM-DD`.
    public var description: String {
        var text = ""
        text.reserveCapacity(10)
        appendPadded(year, width: 4, to: &text)
        text.append("-")
        appendPadded(month, width: 2, to: &text)
        text.append("-")
        appendPadded(day, width: 2, to: &text)
        return text
    }

    /// Parses `YYYY-MM-DD`.
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(validatingYear: y, month: m, day: d)
    }
}

@inline(__always)
func appendPadded(_ value: Int, width: Int, to text: inout String) {
    let digits = String(value < 0 ? -value : value)
    if value < 0 { text.append("-") }
    if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
    text.append(digits)
}
