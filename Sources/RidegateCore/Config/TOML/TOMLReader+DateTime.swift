/// Scalars that are not strings: numbers, and offset, local date-times, dates and times (RFC 3339).
extension TOMLReader {
    /// Integers, floats, dates and times: the run of characters up to the next delimiter, then its form.
    mutating func scalar() throws(TOMLError) -> TOMLNode {
        let start = index
        let where_ = position
        if let dateTime = try dateTime() { return TOMLNode(.dateTime(dateTime), at: where_) }
        index = start
        while let b = peek, !Self.endsScalar(b) { index += 1 }
        let text = Array(bytes[start..<index])
        guard !text.isEmpty else { throw error("expected a value, found \(found)") }
        if let number = try TOMLNumber.parse(text, at: where_) { return TOMLNode(number, at: where_) }
        let shown = String(decoding: text, as: UTF8.self)
        throw TOMLError("\(shown) is not a TOML value (quote text: \"\(shown)\"; numbers, true/false, dates and times are bare)", at: where_)
    }

    static func endsScalar(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}")
            || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "#")
    }

    /// `count` decimal digits at `offset` as a number, or nil.
    func digits(_ count: Int, at offset: Int) -> Int? {
        guard offset + count <= bytes.count else { return nil }
        var value = 0
        for i in offset..<offset + count {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else { return nil }
            value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
        }
        return value
    }

    func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// A date, time or date-time at the cursor, or nil (cursor unchanged) when the text is not shaped like one.
    mutating func dateTime() throws(TOMLError) -> TOMLDateTime? {
        let start = index
        var result = TOMLDateTime()
        var i = index
        if let year = digits(4, at: i), byte(at: i + 4) == UInt8(ascii: "-") {
            result.date = try date(year: year, at: i, start: start)
            i += 10
            // A time follows after T, t, or a space followed by a digit.
            if let sep = byte(at: i), sep == UInt8(ascii: "T") || sep == UInt8(ascii: "t")
                || (sep == 0x20 && byte(at: i + 1).map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } == true) {
                i += 1
            } else {
                index = i
                return result
            }
        } else if !(digits(2, at: i) != nil && byte(at: i + 2) == UInt8(ascii: ":")) {
            return nil
        }
        result.time = try time(at: &i, start: start)
        if result.date != nil { result.offsetMinutes = try offset(at: &i, start: start) }
        if let next = byte(at: i), !Self.endsScalar(next) {
            throw error("unexpected \(String(decoding: [next], as: UTF8.self)) after a date or time", at: i)
        }
        index = i
        return result
    }

    /// YYYY-MM-DD at `i` (its year read), checked against the calendar.
    func date(year: Int, at i: Int, start: Int) throws(TOMLError) -> (year: Int, month: Int, day: Int) {
        guard let month = digits(2, at: i + 5), byte(at: i + 7) == UInt8(ascii: "-"), let day = digits(2, at: i + 8),
              byte(at: i + 10).map({ !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) ?? true else {
            throw error("a malformed date: write YYYY-MM-DD, e.g. 1979-05-27", at: start)
        }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else {
            throw error("\(String(decoding: bytes[i..<i + 10], as: UTF8.self)) is not a date in the calendar", at: start)
        }
        return (year, month, day)
    }

    /// HH:MM:SS[.fraction] at `i`, which it moves past.
    func time(at i: inout Int, start: Int) throws(TOMLError) -> (hour: Int, minute: Int, second: Int, fraction: String) {
        guard let hour = digits(2, at: i), byte(at: i + 2) == UInt8(ascii: ":"), let minute = digits(2, at: i + 3),
              byte(at: i + 5) == UInt8(ascii: ":"), let second = digits(2, at: i + 6) else {
            throw error("a malformed time: write HH:MM:SS with seconds, e.g. 07:32:00", at: start)
        }
        guard hour < 24, minute < 60, second <= 60 else {
            throw error("\(String(decoding: bytes[i..<i + 8], as: UTF8.self)) is not a time of day", at: start)
        }
        i += 8
        var fraction = ""
        if byte(at: i) == UInt8(ascii: ".") {
            i += 1
            let begin = i
            while let d = byte(at: i), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) { i += 1 }
            guard i > begin else { throw error("a decimal point in a time needs digits after it", at: start) }
            fraction = String(decoding: bytes[begin..<i], as: UTF8.self)
        }
        return (hour, minute, second, fraction)
    }

    /// A date-time's UTC offset at `i` (Z, +HH:MM, -HH:MM) in minutes, which it moves past; nil for a local one.
    func offset(at i: inout Int, start: Int) throws(TOMLError) -> Int? {
        if let z = byte(at: i), z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") {
            i += 1
            return 0
        }
        guard let sign = byte(at: i), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        guard let oh = digits(2, at: i + 1), byte(at: i + 3) == UInt8(ascii: ":"), let om = digits(2, at: i + 4), oh < 24, om < 60 else {
            throw error("a malformed UTC offset: write Z, +HH:MM or -HH:MM", at: start)
        }
        i += 6
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (oh * 60 + om)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
