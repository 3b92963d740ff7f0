/// A ride as GPX 1.1 (topografix.com/GPX/1/1), the file every ride site and mapping tool reads: one track point
/// a second, where the ride had a position.
///
/// Heart rate and cadence go in Garmin's TrackPointExtension v1 (`gpxtpx:hr`, `gpxtpx:cad`), where Strava,
/// Garmin Connect, GoldenCheetah and gpxpy look for them; power in Garmin's PowerExtension v1
/// (`pwr:PowerInWatts`): a bare `<power>` is what some sites read, but it is in GPX's own namespace, which the
/// GPX 1.1 schema does not allow in extensions. A gap in the points longer than `segmentGap` starts a new track
/// segment, so a tunnel is not drawn as a straight line through the hill.
public struct GPXDocument: RideFileWriter {
    public static let segmentGap = 10.0
    private var out: [UInt8] = []
    private var seconds = OncePerSecond()
    private var previous: Timestamp?

    public init(_ export: RideExport) {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<gpx version="1.1" creator=""# + Self.escape(export.creator) + #"" xmlns="http://www.topografix.com/GPX/1/1""#
        text += #" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#
        text += #" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1""#
        text += #" xmlns:pwr="http://www.garmin.com/xmlschemas/PowerExtension/v1""#
        text += #" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd"#
        text += #" http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www8.garmin.com/xmlschemas/TrackPointExtensionv1.xsd">"# + "\n"
        text += "  <metadata><time>\(export.summary.statistics.start.iso8601)</time></metadata>\n"
        text += "  <trk>\n    <name>\(Self.escape(export.name))</name>\n    <type>cycling</type>\n"
        out = Array(text.utf8)
    }

    public mutating func take() -> [UInt8] {
        defer { out.removeAll(keepingCapacity: true) }
        return out
    }

    public mutating func add(_ point: RidePoint) {
        guard let record = seconds.take(point), let position = record.position else { return }
        var text = ""
        if previous == nil || record.time - (previous ?? record.time) > Self.segmentGap {
            if previous != nil { text += "    </trkseg>\n" }
            text += "    <trkseg>\n"
        }
        previous = record.time
        text += "      <trkpt lat=\"" + Self.number(position.latitude, 7) + "\" lon=\"" + Self.number(position.longitude, 7) + "\">"
        if let altitude = record.altitude { text += "<ele>" + Self.number(altitude, 1) + "</ele>" }
        text += "<time>\(record.time.iso8601)</time>"
        if record.heartRate != nil || record.cadence != nil || record.power != nil {
            text += "<extensions>"
            if let power = record.power { text += "<pwr:PowerInWatts>\(max(0, power))</pwr:PowerInWatts>" }
            if record.heartRate != nil || record.cadence != nil {
                text += "<gpxtpx:TrackPointExtension>"
                if let hr = record.heartRate { text += "<gpxtpx:hr>\(max(0, min(255, hr)))</gpxtpx:hr>" }
                if let cadence = record.cadence { text += "<gpxtpx:cad>\(Int(rounding: cadence, within: 0...254) ?? 0)</gpxtpx:cad>" }
                text += "</gpxtpx:TrackPointExtension>"
            }
            text += "</extensions>"
        }
        out += Array((text + "</trkpt>\n").utf8)
    }

    public mutating func finish() {
        out += Array(((previous != nil ? "    </trkseg>\n" : "") + "  </trk>\n</gpx>\n").utf8)
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
