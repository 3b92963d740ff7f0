/// A ride as a Training Center Database v2 file (Garmin's TCX), which Strava, Garmin Connect, TrainingPeaks
/// and GoldenCheetah import: one Biking activity, a lap every `lapMetres` (a head unit's auto-lap), and per
/// trackpoint position, altitude, distance, heart rate, cadence, and in ActivityExtension v2 speed and watts.
/// Elements are in the schema's order (TrainingCenterDatabasev2.xsd is a sequence, not a set).
public enum TCXDocument {
    public static let lapMetres = 5000.0

    public static func write(_ points: [RidePoint], creator: String) -> String {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2""#
        text += #" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2""#
        text += #" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#
        text += #" xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">"# + "\n"
        text += "  <Activities>\n"
        guard let first = points.first else {
            return text + "  </Activities>\n</TrainingCenterDatabase>\n"
        }
        text += "    <Activity Sport=\"Biking\">\n      <Id>\(first.time.iso8601)</Id>\n"
        for lap in laps(points) { text += lapXML(lap) }
        text += "      <Creator xsi:type=\"Application_t\"><Name>" + GPXDocument.escape(creator) + "</Name>"
        text += "<Build><Version><VersionMajor>0</VersionMajor><VersionMinor>1</VersionMinor></Version></Build>"
        text += "<LangID>en</LangID><PartNumber>000-00000-00</PartNumber></Creator>\n"
        text += "    </Activity>\n  </Activities>\n</TrainingCenterDatabase>\n"
        return text
    }

    /// Consecutive runs of points, a new one each time the distance passes another `lapMetres`.
    static func laps(_ points: [RidePoint]) -> [[RidePoint]] {
        var laps: [[RidePoint]] = []
        var current: [RidePoint] = []
        var lapStart = points.first?.distance ?? 0
        for point in points {
            if point.distance - lapStart >= lapMetres, !current.isEmpty {
                laps.append(current)
                current = []
                lapStart = point.distance
            }
            current.append(point)
        }
        if !current.isEmpty { laps.append(current) }
        return laps
    }

    static func lapXML(_ lap: [RidePoint]) -> String {
        guard let first = lap.first, let last = lap.last else { return "" }
        let heartRates = lap.compactMap(\.heartRate).filter { $0 > 0 }
        let cadences = lap.compactMap(\.cadence).filter { $0 > 0 }
        var text = "      <Lap StartTime=\"\(first.time.iso8601)\">\n"
        text += "        <TotalTimeSeconds>" + GPXDocument.number(last.time - first.time, 1) + "</TotalTimeSeconds>\n"
        text += "        <DistanceMeters>" + GPXDocument.number(last.distance - first.distance, 1) + "</DistanceMeters>\n"
        if let top = lap.compactMap(\.speed).max() { text += "        <MaximumSpeed>" + GPXDocument.number(top, 2) + "</MaximumSpeed>\n" }
        text += "        <Calories>0</Calories>\n"
        if !heartRates.isEmpty {
            let average = Int((Double(heartRates.reduce(0, +)) / Double(heartRates.count)).rounded())
            text += "        <AverageHeartRateBpm><Value>\(min(255, average))</Value></AverageHeartRateBpm>\n"
            text += "        <MaximumHeartRateBpm><Value>\(min(255, heartRates.max() ?? average))</Value></MaximumHeartRateBpm>\n"
        }
        text += "        <Intensity>Active</Intensity>\n"
        if !cadences.isEmpty {
            text += "        <Cadence>\(min(254, Int((cadences.reduce(0, +) / Double(cadences.count)).rounded())))</Cadence>\n"
        }
        text += "        <TriggerMethod>Distance</TriggerMethod>\n        <Track>\n"
        for point in lap {
            text += "          <Trackpoint><Time>\(point.time.iso8601)</Time>"
            if let position = point.position {
                text += "<Position><LatitudeDegrees>" + GPXDocument.number(position.latitude, 7) + "</LatitudeDegrees>"
                text += "<LongitudeDegrees>" + GPXDocument.number(position.longitude, 7) + "</LongitudeDegrees></Position>"
            }
            if let altitude = point.altitude { text += "<AltitudeMeters>" + GPXDocument.number(altitude, 1) + "</AltitudeMeters>" }
            text += "<DistanceMeters>" + GPXDocument.number(point.distance, 1) + "</DistanceMeters>"
            if let hr = point.heartRate, hr > 0 { text += "<HeartRateBpm><Value>\(min(255, hr))</Value></HeartRateBpm>" }
            if let cadence = point.cadence { text += "<Cadence>\(min(254, max(0, Int(cadence.rounded()))))</Cadence>" }
            if point.speed != nil || point.power != nil {
                text += "<Extensions><ns3:TPX>"
                if let speed = point.speed { text += "<ns3:Speed>" + GPXDocument.number(speed, 2) + "</ns3:Speed>" }
                if let power = point.power { text += "<ns3:Watts>\(max(0, power))</ns3:Watts>" }
                text += "</ns3:TPX></Extensions>"
            }
            text += "</Trackpoint>\n"
        }
        text += "        </Track>\n      </Lap>\n"
        return text
    }
}
