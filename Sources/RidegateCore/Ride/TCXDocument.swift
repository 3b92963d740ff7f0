/// A ride as a Training Center Database v2 file (Garmin's TCX), which Strava, Garmin Connect, TrainingPeaks and
/// GoldenCheetah import: one Biking activity; its laps with the totals a head unit writes (timer time — moving
/// time —, distance, maximum speed, calories, heart rate, cadence, and in ActivityExtension v2's LX the average
/// speed and the average and maximum power); one trackpoint a second with position, altitude, distance, heart
/// rate, cadence, and in ActivityExtension v2's TPX speed and watts. Elements are in the schema's order
/// (TrainingCenterDatabasev2.xsd is a sequence, not a set). TCX requires a lap's Calories: 0 there means unknown.
public struct TCXDocument: RideFileWriter {
    let export: RideExport
    private var out: [UInt8] = []
    private var seconds = OncePerSecond()
    private var lapIndex = 0
    private var lapOpen = false

    public init(_ export: RideExport) {
        self.export = export
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2""#
        text += #" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2""#
        text += #" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#
        text += #" xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">"# + "\n"
        text += "  <Activities>\n"
        text += "    <Activity Sport=\"Biking\">\n      <Id>\(export.summary.statistics.start.iso8601)</Id>\n"
        out = Array(text.utf8)
    }

    public mutating func take() -> [UInt8] {
        defer { out.removeAll(keepingCapacity: true) }
        return out
    }

    public mutating func add(_ point: RidePoint) {
        guard let record = seconds.take(point) else { return }
        let laps = export.summary.laps
        while lapIndex < laps.count - 1, record.time > laps[lapIndex].statistics.end {
            if !lapOpen { openLap(lapIndex) } // a lap with no record of its own still counts its time and distance
            closeLap()
            lapIndex += 1
        }
        if !lapOpen { openLap(lapIndex) }
        var text = "          <Trackpoint><Time>\(record.time.iso8601)</Time>"
        if let position = record.position {
            text += "<Position><LatitudeDegrees>" + GPXDocument.number(position.latitude, 7) + "</LatitudeDegrees>"
            text += "<LongitudeDegrees>" + GPXDocument.number(position.longitude, 7) + "</LongitudeDegrees></Position>"
        }
        if let altitude = record.altitude { text += "<AltitudeMeters>" + GPXDocument.number(altitude, 1) + "</AltitudeMeters>" }
        text += "<DistanceMeters>" + GPXDocument.number(record.distance, 1) + "</DistanceMeters>"
        if let hr = record.heartRate, hr > 0 { text += "<HeartRateBpm><Value>\(min(255, hr))</Value></HeartRateBpm>" }
        if let cadence = record.cadence { text += "<Cadence>\(Int(rounding: cadence, within: 0...254) ?? 0)</Cadence>" }
        if record.speed != nil || record.power != nil {
            text += "<Extensions><ns3:TPX>"
            if let speed = record.speed { text += "<ns3:Speed>" + GPXDocument.number(speed, 2) + "</ns3:Speed>" }
            if let power = record.power { text += "<ns3:Watts>\(max(0, min(65_535, power)))</ns3:Watts>" }
            text += "</ns3:TPX></Extensions>"
        }
        out += Array((text + "</Trackpoint>\n").utf8)
    }

    public mutating func finish() {
        while lapIndex < export.summary.laps.count {
            if !lapOpen { openLap(lapIndex) }
            closeLap()
            lapIndex += 1
        }
        var text = "      <Creator xsi:type=\"Device_t\"><Name>" + GPXDocument.escape(export.creator) + "</Name>"
        text += "<UnitId>\(export.serialNumber)</UnitId><ProductID>1</ProductID>"
        let version = export.softwareVersion ?? 0
        text += "<Version><VersionMajor>\(Int(version))</VersionMajor><VersionMinor>\(Int(((version - Double(Int(version))) * 100).rounded()))</VersionMinor></Version>"
        text += "</Creator>\n"
        text += "    </Activity>\n  </Activities>\n</TrainingCenterDatabase>\n"
        out += Array(text.utf8)
    }

    private mutating func openLap(_ index: Int) {
        let lap = export.summary.laps[index]
        let s = lap.statistics
        var text = "      <Lap StartTime=\"\(s.start.iso8601)\">\n"
        text += "        <TotalTimeSeconds>" + GPXDocument.number(s.timerSeconds, 1) + "</TotalTimeSeconds>\n"
        text += "        <DistanceMeters>" + GPXDocument.number(s.distanceMeters, 1) + "</DistanceMeters>\n"
        if let top = s.maximumSpeed { text += "        <MaximumSpeed>" + GPXDocument.number(top, 2) + "</MaximumSpeed>\n" }
        text += "        <Calories>\(min(65_535, max(0, Int((s.calories ?? 0).rounded()))))</Calories>\n"
        if let average = s.averageHeartRate, let maximum = s.maximumHeartRate {
            text += "        <AverageHeartRateBpm><Value>\(min(255, Int(average.rounded())))</Value></AverageHeartRateBpm>\n"
            text += "        <MaximumHeartRateBpm><Value>\(min(255, maximum))</Value></MaximumHeartRateBpm>\n"
        }
        text += "        <Intensity>Active</Intensity>\n"
        if let cadence = s.averageCadence { text += "        <Cadence>\(Int(rounding: cadence, within: 0...254) ?? 0)</Cadence>\n" }
        text += "        <TriggerMethod>\(lap.trigger.tcxValue)</TriggerMethod>\n        <Track>\n"
        out += Array(text.utf8)
        lapOpen = true
    }

    private mutating func closeLap() {
        let s = export.summary.laps[lapIndex].statistics
        var text = "        </Track>\n        <Extensions><ns3:LX>"
        if let speed = s.averageSpeed { text += "<ns3:AvgSpeed>" + GPXDocument.number(speed, 2) + "</ns3:AvgSpeed>" }
        if let cadence = s.maximumCadence { text += "<ns3:MaxBikeCadence>\(min(254, cadence))</ns3:MaxBikeCadence>" }
        if let power = s.averagePower { text += "<ns3:AvgWatts>\(min(65_535, Int(power.rounded())))</ns3:AvgWatts>" }
        if let power = s.maximumPower { text += "<ns3:MaxWatts>\(min(65_535, power))</ns3:MaxWatts>" }
        text += "</ns3:LX></Extensions>\n      </Lap>\n"
        out += Array(text.utf8)
        lapOpen = false
    }
}
