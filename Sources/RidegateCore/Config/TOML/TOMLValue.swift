/// A parsed TOML 1.0 document's values, each with where it was written (its key's line and column), so a
/// config error can point at the exact place.
public struct TOMLNode: Sendable {
    public indirect enum Value: Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case bool(Bool)
        case dateTime(TOMLDateTime)
        case array([TOMLNode])
        case table([String: TOMLNode])
    }

    public var value: Value
    public var position: TOMLPosition

    public init(_ value: Value, at position: TOMLPosition) {
        self.value = value
        self.position = position
    }
}

/// 1-based line and column (in characters) in the document.
public struct TOMLPosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// The four date and time forms of TOML: offset date-time, local date-time, local date, local time.
public struct TOMLDateTime: Sendable, Equatable {
    public var date: (year: Int, month: Int, day: Int)?
    /// Hour, minute, second, and the fraction's digits as written ("6" for .6, "" without a fraction).
    public var time: (hour: Int, minute: Int, second: Int, fraction: String)?
    /// Minutes east of UTC (0 for `Z`); nil for the local forms.
    public var offsetMinutes: Int?

    public static func == (a: TOMLDateTime, b: TOMLDateTime) -> Bool {
        a.date?.year == b.date?.year && a.date?.month == b.date?.month && a.date?.day == b.date?.day
            && a.time?.hour == b.time?.hour && a.time?.minute == b.time?.minute && a.time?.second == b.time?.second
            && a.time?.fraction == b.time?.fraction && a.offsetMinutes == b.offsetMinutes
    }

    /// RFC 3339 text: `1979-05-27T07:32:00.5Z`, `1979-05-27`, `07:32:00`, `1979-05-27T00:32:00-07:00`.
    public var text: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var out = ""
        if let d = date {
            let year = String(d.year)
            out += String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(d.month) + "-" + two(d.day)
        }
        if let t = time {
            if date != nil { out += "T" }
            out += two(t.hour) + ":" + two(t.minute) + ":" + two(t.second) + (t.fraction.isEmpty ? "" : "." + t.fraction)
        }
        if let offset = offsetMinutes {
            if offset == 0 {
                out += "Z"
            } else {
                out += (offset < 0 ? "-" : "+") + two(abs(offset) / 60) + ":" + two(abs(offset) % 60)
            }
        }
        return out
    }

    /// toml-test's names: `datetime`, `datetime-local`, `date-local`, `time-local`.
    public var kind: String {
        switch (date != nil, time != nil, offsetMinutes != nil) {
        case (true, true, true): "datetime"
        case (true, true, false): "datetime-local"
        case (true, false, _): "date-local"
        default: "time-local"
        }
    }
}

/// Why a document is not TOML, and where.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var position: TOMLPosition
    public var message: String

    public init(_ message: String, at position: TOMLPosition) {
        self.message = message
        self.position = position
    }

    public var description: String { "\(position): \(message)" }
}
