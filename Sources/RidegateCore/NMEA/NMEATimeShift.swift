/// Moves recorded sentences in time by a whole number of seconds: the time of day, and the date where the
/// sentence carries one (RMC's `ddmmyy`, ZDA's day, month and year), with the checksum worked out again.
/// The demo uses it to replay a ride recorded on another day as if it were being ridden now, so sun times,
/// ride names and file dates make sense to whoever watches; positions and everything else stay as recorded.
public struct NMEATimeShift: Sendable, Equatable {
    public let seconds: Int

    public init(seconds: Int) {
        self.seconds = seconds
    }

    /// The whole-second shift that moves `recorded` to `target` (the fraction of a second stays as recorded).
    public init(from recorded: Timestamp, to target: Timestamp) {
        let difference = (target - recorded).rounded()
        seconds = difference.isFinite && abs(difference) < 1e12 ? Int(difference) : 0
    }

    /// Where the time and date fields are, by sentence type (after the talker).
    private enum Layout {
        case timeOnly(field: Int)
        case rmc
        case zda
    }

    private static func layout(of type: String) -> Layout? {
        switch type {
        case "RMC": .rmc
        case "ZDA": .zda
        case "GGA", "GNS", "GBS", "GST": .timeOnly(field: 1)
        case "GLL": .timeOnly(field: 5)
        default: nil
        }
    }

    /// The line moved in time. A line without a time, one that does not frame, and an empty time field come
    /// back as they were.
    public func apply(to line: ArraySlice<UInt8>) -> [UInt8] {
        guard seconds != 0, case .success(let frame) = NMEAFraming.frame(line), frame.bytes.first == UInt8(ascii: "$"),
              let layout = Self.layout(of: frame.sentenceType) else { return Array(line) }
        var fields = (0..<frame.fieldCount).map { frame.field($0) }.map(Array.init)
        switch layout {
        case .timeOnly(let index):
            guard index < fields.count, let time = ClockText(fields[index]) else { return Array(line) }
            fields[index] = time.moved(by: seconds, days: nil).time
        case .rmc:
            guard fields.count > 9, let time = ClockText(fields[1]) else { return Array(line) }
            let day = DateText.ddmmyy(fields[9])
            let moved = time.moved(by: seconds, days: day?.daysSince1970)
            fields[1] = moved.time
            if let days = moved.days { fields[9] = DateText.ddmmyy(CivilDate(daysSince1970: days)) }
        case .zda:
            guard fields.count > 4, let time = ClockText(fields[1]) else { return Array(line) }
            let day = DateText.separate(day: fields[2], month: fields[3], year: fields[4])
            let moved = time.moved(by: seconds, days: day?.daysSince1970)
            fields[1] = moved.time
            if let days = moved.days {
                let date = CivilDate(daysSince1970: days)
                fields[2] = DateText.digits(date.day, 2)
                fields[3] = DateText.digits(date.month, 2)
                fields[4] = DateText.digits(date.year, 4)
            }
        }
        var body: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += field
        }
        var out = [UInt8(ascii: "$")] + body
        guard frame.hadChecksum else { return out }
        let sum = body.reduce(UInt8(0), ^)
        let hex = Array("0123456789ABCDEF".utf8)
        out += [UInt8(ascii: "*"), hex[Int(sum >> 4)], hex[Int(sum & 0xF)]]
        return out
    }
}

/// `hhmmss` with whatever fraction followed it (kept as text: a shift is whole seconds).
private struct ClockText {
    let secondsOfDay: Int
    let fraction: ArraySlice<UInt8>

    init?(_ field: [UInt8]) {
        guard field.count >= 6, let h = DateText.number(field[0..<2]), let m = DateText.number(field[2..<4]),
              let s = DateText.number(field[4..<6]), h < 24, m < 60, s < 61 else { return nil }
        secondsOfDay = h * 3600 + m * 60 + min(s, 59)
        fraction = field[6...]
    }

    /// The time moved by `seconds`, and the day number moved with it when there is one.
    func moved(by seconds: Int, days: Int?) -> (time: [UInt8], days: Int?) {
        let total = (days ?? 0) * 86_400 + secondsOfDay + seconds
        var day = total / 86_400
        var rest = total % 86_400
        if rest < 0 {
            rest += 86_400
            day -= 1
        }
        let text = DateText.digits(rest / 3600, 2) + DateText.digits(rest / 60 % 60, 2) + DateText.digits(rest % 60, 2)
        return (text + fraction, days == nil ? nil : day)
    }
}

private enum DateText {
    static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 4 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    static func digits(_ value: Int, _ width: Int) -> [UInt8] {
        var text = Array(String(value).utf8)
        while text.count < width { text.insert(UInt8(ascii: "0"), at: 0) }
        return text
    }

    /// RMC's date: two-digit years are 2000–2099 here (a replayed recording, not a receiver's rollover).
    static func ddmmyy(_ field: [UInt8]) -> CivilDate? {
        guard field.count == 6, let d = number(field[0..<2]), let m = number(field[2..<4]), let y = number(field[4..<6]) else { return nil }
        return CivilDate(validatingYear: 2000 + y, month: m, day: d)
    }

    static func ddmmyy(_ date: CivilDate) -> [UInt8] {
        digits(date.day, 2) + digits(date.month, 2) + digits(((date.year % 100) + 100) % 100, 2)
    }

    static func separate(day: [UInt8], month: [UInt8], year: [UInt8]) -> CivilDate? {
        guard let d = number(day[...]), let m = number(month[...]), let y = number(year[...]) else { return nil }
        return CivilDate(validatingYear: y, month: m, day: d)
    }
}
