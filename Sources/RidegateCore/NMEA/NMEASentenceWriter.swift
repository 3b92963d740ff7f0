/// Writes the sentences a GPS receiver sends for a fix — RMC (time, date, position, speed, course) and GGA
/// (position, altitude, satellites, HDOP) — with their checksums: how the demo turns a recorded ride into a
/// receiver's output for the real serial reader and parser.
public enum NMEASentenceWriter {
    /// `$GPRMC,hhmmss.ss,A,ddmm.mmmmm,N,dddmm.mmmmm,W,knots,course,ddmmyy,,,A*hh`
    public static func rmc(time: Timestamp, latitude: Double, longitude: Double, speed: Double?, course: Double?) -> String {
        let date = time.date
        var body = "GPRMC," + clock(time) + ",A," + coordinates(latitude, longitude) + ","
        body += (speed.map { fixed(max(0, $0) / 0.514444, 3) } ?? "") + "," + (course.map { fixed($0, 2) } ?? "") + ","
        body += two(date.day) + two(date.month) + two(((date.year % 100) + 100) % 100) + ",,,A"
        return sentence(body)
    }

    /// `$GPGGA,hhmmss.ss,ddmm.mmmmm,N,dddmm.mmmmm,W,1,09,0.9,altitude,M,,M,,`
    public static func gga(time: Timestamp, latitude: Double, longitude: Double, altitude: Double?, satellites: Int = 9,
                           hdop: Double = 0.9) -> String {
        var body = "GPGGA," + clock(time) + "," + coordinates(latitude, longitude) + ",1," + two(max(0, min(99, satellites))) + ","
        body += fixed(hdop, 1) + "," + (altitude.map { fixed($0, 1) } ?? "") + ",M,,M,,"
        return sentence(body)
    }

    /// An epoch of a receiver still searching: RMC void, GGA with fix quality 0.
    public static func searching(time: Timestamp) -> [String] {
        let date = time.date
        let day = two(date.day) + two(date.month) + two(((date.year % 100) + 100) % 100)
        return [sentence("GPRMC," + clock(time) + ",V,,,,,,," + day + ",,,N"), sentence("GPGGA," + clock(time) + ",,,,,0,00,,,M,,M,,")]
    }

    /// `$` + body + `*` + the XOR of the body's bytes in two hex digits.
    public static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = Array("0123456789ABCDEF")
        return "$" + body + "*" + String(hex[Int(sum >> 4)]) + String(hex[Int(sum & 0xF)])
    }

    static func clock(_ time: Timestamp) -> String {
        let day = time.secondsOfDay
        let hundredths = Int((day * 100).rounded(.down))
        let seconds = hundredths / 100
        return two(seconds / 3600) + two(seconds / 60 % 60) + two(seconds % 60) + "." + two(hundredths % 100)
    }

    static func coordinates(_ latitude: Double, _ longitude: Double) -> String {
        angle(abs(latitude), degreeDigits: 2) + (latitude < 0 ? ",S," : ",N,") + angle(abs(longitude), degreeDigits: 3) + (longitude < 0 ? ",W" : ",E")
    }

    /// Degrees as NMEA's dddmm.mmmmm.
    static func angle(_ value: Double, degreeDigits: Int) -> String {
        let total = Int((value * 60 * 100_000).rounded()) // hundred-thousandths of a minute
        let degrees = total / (60 * 100_000)
        let minutes = total % (60 * 100_000)
        var text = String(degrees)
        while text.count < degreeDigits { text = "0" + text }
        var whole = String(minutes / 100_000)
        if whole.count < 2 { whole = "0" + whole }
        var fraction = String(minutes % 100_000)
        while fraction.count < 5 { fraction = "0" + fraction }
        return text + whole + "." + fraction
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String {
        var text = ""
        JSONObjectWriter.appendNumber(value, decimals: decimals, to: &text)
        return text
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
