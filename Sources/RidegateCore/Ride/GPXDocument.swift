/// A ride as GPX 1.1 (topografix.com/GPX/1/1), the file every ride site and mapping tool reads.
///
/// Heart rate and cadence go in Garmin's TrackPointExtension v1 (`gpxtpx:hr`, `gpxtpx:cad`), where Strava,
/// Garmin Connect, GoldenCheetah and gpxpy look for them; power in Garmin's PowerExtension v1
/// (`pwr:PowerInWatts`): a bare `<power>` is what some sites read, but it is in GPX's own namespace, which the
/// GPX 1.1 schema does not allow in extensions. A gap in the fixes longer than
/// `segmentGap` starts a new track segment, so a tunnel is not drawn as a straight line through the hill.
public enum GPXDocument {
    public static let segmentGap = 10.0

    public static func write(_ points: [RidePoint], name: String, creator: String) -> String {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<gpx version="1.1" creator=""# + escape(creator) + #"" xmlns="http://www.topografix.com/GPX/1/1""#
        text += #" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#
        text += #" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1""#
        text += #" xmlns:pwr="http://www.garmin.com/xmlschemas/PowerExtension/v1""#
        text += #" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd"#
        text += #" http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www8.garmin.com/xmlschemas/TrackPointExtensionv1.xsd">"# + "\n"
        if let first = points.first { text += "  <metadata><time>\(first.time.iso8601)</time></metadata>\n" }
        text += "  <trk>\n    <name>\(escape(name))</name>\n    <type>cycling</type>\n"
        var previous: Timestamp?
        for point in points {
            guard let position = point.position else { continue }
            if previous == nil || point.time - (previous ?? point.time) > segmentGap {
                if previous != nil { text += "    </trkseg>\n" }
                text += "    <trkseg>\n"
            }
            previous = point.time
            text += "      <trkpt lat=\"" + number(position.latitude, 7) + "\" lon=\"" + number(position.longitude, 7) + "\">"
            if let altitude = point.altitude { text += "<ele>" + number(altitude, 1) + "</ele>" }
            text += "<time>\(point.time.iso8601)</time>"
            if point.heartRate != nil || point.cadence != nil || point.power != nil {
                text += "<extensions>"
                if let power = point.power { text += "<pwr:PowerInWatts>\(power)</pwr:PowerInWatts>" }
                if point.heartRate != nil || point.cadence != nil {
                    text += "<gpxtpx:TrackPointExtension>"
                    if let hr = point.heartRate { text += "<gpxtpx:hr>\(hr)</gpxtpx:hr>" }
                    if let cadence = point.cadence { text += "<gpxtpx:cad>\(Int(cadence.rounded()))</gpxtpx:cad>" }
                    text += "</gpxtpx:TrackPointExtension>"
                }
                text += "</extensions>"
            }
            text += "</trkpt>\n"
        }
        if previous != nil { text += "    </trkseg>\n" }
        text += "  </trk>\n</gpx>\n"
        return text
    }

    static func number(_ value: Double, _ decimals: Int) -> String {
        var text = ""
        JSONObjectWriter.appendNumber(value, decimals: decimals, to: &text)
        return text
    }

    /// XML's five: a ride's name is the user's text.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
