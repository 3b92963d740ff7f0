/// What `ridegate nmea` says about each fix-carrying sentence of a capture: the sentence's own values,
/// the time (with the date known so far), and the epoch's mode after it. Pure, so the command and its
/// tests share it.
public struct NMEAReportLine: Sendable, Equatable {
    public var line: Int
    public var sentence: String
    public var valid: Bool
    public var time: Timestamp?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var speed: Double?
    public var track: Double?
    public var mode: GPSFix.Mode
    public var satellites: Int?
    public var hdop: Double?

    public var json: String {
        var w = JSONObjectWriter()
        w.add("line", line)
        w.add("sentence", sentence)
        w.add("valid", valid)
        if let time { w.add("time", time.iso8601) }
        if let latitude { w.add("lat", latitude, decimals: 9) }
        if let longitude { w.add("lon", longitude, decimals: 9) }
        if let altitude { w.add("alt", altitude, decimals: 3) }
        if let speed { w.add("speed", speed, decimals: 4) }
        if let track { w.add("track", track, decimals: 3) }
        w.add("mode", mode.rawValue)
        if let satellites { w.add("sats", satellites) }
        if let hdop { w.add("hdop", hdop, decimals: 2) }
        return w.finish()
    }
}

public struct NMEAReporter: Sendable {
    private let decoder = NMEADecoder()
    private var assembler: FixAssembler
    public private(set) var statistics = NMEAStatistics()
    public private(set) var texts: [String] = []

    /// - Parameter assumedDate: the date to use before the first RMC or ZDA (gpsd's `# Date:` header).
    public init(assumedDate: CivilDate? = nil) {
        assembler = FixAssembler(assumedDate: assumedDate)
    }

    public mutating func feed(line: ArraySlice<UInt8>, number: Int) -> NMEAReportLine? {
        let outcome = decoder.decode(line: line)
        statistics.count(outcome)
        guard case .decoded(let sentence) = outcome else { return nil }
        _ = assembler.consume(sentence)
        var r = NMEAReportLine(line: number, sentence: sentence.address, valid: false, mode: assembler.inProgress.mode)
        if let tod = sentence.timeOfDay, let date = assembler.date {
            r.time = Timestamp(date: date, secondsOfDay: tod)
        }
        switch sentence.body {
        case .rmc(let s):
            r.valid = s.isValid
            if s.isValid { (r.latitude, r.longitude, r.speed, r.track) = (s.latitude, s.longitude, s.speedMetersPerSecond, s.trackDegrees) }
        case .gga(let s):
            r.valid = s.isValid
            (r.satellites, r.hdop) = (s.satellitesUsed, s.hdop)
            if s.isValid { (r.latitude, r.longitude, r.altitude) = (s.latitude, s.longitude, s.altitudeMSL) }
        case .gll(let s):
            r.valid = s.isValid
            if s.isValid { (r.latitude, r.longitude) = (s.latitude, s.longitude) }
        case .gns(let s):
            r.valid = s.isValid
            (r.satellites, r.hdop) = (s.satellitesUsed, s.hdop)
            if s.isValid { (r.latitude, r.longitude, r.altitude) = (s.latitude, s.longitude, s.altitudeMSL) }
        case .vtg(let s):
            // VTG has no status of its own beyond its mode letter: in an epoch without a fix (Hemisphere's
            // stale GGA) its speed is as stale as the position, and gpsd drops it too.
            r.valid = s.isValid && r.mode != .noFix
            if s.isValid { (r.speed, r.track) = (s.speedMetersPerSecond, s.trackDegrees) }
            r.time = assembler.inProgress.time
        case .txt(let t):
            texts.append(t.text)
            return nil
        case .gsa, .gsv, .zda:
            return nil
        }
        return r
    }
}
