/// Assembles sentences into one fix per epoch (all sentences sharing a UTC time).
///
/// Receivers send an epoch as a burst (GGA, GSA, RMC… in an order of their own). Waiting for the next epoch
/// to close one would add a whole cycle of latency, so, like gpsd, the assembler learns which sentence type
/// ends a cycle (the last one seen before the time changed) and from then on emits as soon as it arrives.
public struct FixAssembler: Sendable {
    private var current = GPSFix()
    private var currentTimeOfDay: Double?
    private var emitted = false
    private var lastType: String?
    private var cycleEnder: String?
    private var sawSentenceInEpoch = false
    /// Date from RMC/ZDA; carried across epochs and rolled over at midnight.
    public private(set) var date: CivilDate?
    private var lastTimeOfDay: Double?

    /// Dates before this are week-rollover victims and are moved forward (nil: trust the receiver, as a
    /// replay of an old capture must).
    public let notBefore: CivilDate?
    /// How many rollover corrections were applied (for logs and the health topic).
    public private(set) var rolloverCorrections = 0

    public init(assumedDate: CivilDate? = nil, notBefore: CivilDate? = nil) {
        date = assumedDate
        self.notBefore = notBefore
    }

    /// Feeds one decoded sentence; returns the fixes completed by it: none, the current epoch (its cycle
    /// ender arrived), the previous one (the time moved on without it), or both.
    public mutating func consume(_ sentence: NMEASentence) -> [GPSFix] {
        // Text comes whenever the receiver has something to say: not part of the cycle.
        if case .txt = sentence.body { return [] }
        var completed: [GPSFix] = []
        if let tod = sentence.timeOfDay {
            if let currentTOD = currentTimeOfDay, abs(currentTOD - tod) > 0.0005 {
                // The epoch changed: the previous one is over.
                if !emitted, sawSentenceInEpoch { completed.append(finish(current)) }
                if let last = lastType, cycleEnder == nil || !emitted { cycleEnder = last }
                startEpoch(timeOfDay: tod)
            } else if currentTimeOfDay == nil {
                startEpoch(timeOfDay: tod)
            }
        }
        merge(sentence)
        sawSentenceInEpoch = true
        lastType = sentence.type
        if !emitted, let ender = cycleEnder, ender == sentence.type {
            emitted = true
            completed.append(finish(current))
        }
        return completed
    }

    /// The epoch as assembled so far (what `ridegate nmea` reports per sentence).
    public var inProgress: GPSFix { finish(current) }

    /// The epoch in progress, for a caller that must flush at end of input.
    public mutating func flush() -> GPSFix? {
        guard !emitted, sawSentenceInEpoch else { return nil }
        emitted = true
        return finish(current)
    }

    private mutating func startEpoch(timeOfDay tod: Double) {
        if let last = lastTimeOfDay, tod + 43_200 < last, let d = date {
            date = CivilDate(daysSince1970: d.daysSince1970 + 1) // crossed midnight before RMC said so
        }
        lastTimeOfDay = tod
        currentTimeOfDay = tod
        current = GPSFix()
        if let d = date { current.time = Timestamp(date: d, secondsOfDay: tod) }
        emitted = false
        sawSentenceInEpoch = false
    }

    private func finish(_ fix: GPSFix) -> GPSFix {
        var fix = fix
        if fix.mode == .noFix {
            fix.latitude = nil
            fix.longitude = nil
            fix.altitudeMSL = nil
            fix.speedMetersPerSecond = nil
            fix.trackDegrees = nil
        }
        return fix
    }

    private mutating func setDate(_ reported: CivilDate, timeOfDay: Double?) {
        var newDate = reported
        if let floor = notBefore {
            let fixed = GPSWeekRollover.corrected(reported, notBefore: floor)
            if fixed.eras > 0 { rolloverCorrections += 1 }
            newDate = fixed.date
        }
        date = newDate
        if let tod = timeOfDay ?? currentTimeOfDay { current.time = Timestamp(date: newDate, secondsOfDay: tod) }
    }

    private mutating func raiseMode(to mode: GPSFix.Mode) {
        if current.mode < mode { current.mode = mode }
    }

    private mutating func merge(_ sentence: NMEASentence) {
        switch sentence.body {
        case .rmc(let rmc):
            if let d = rmc.date { setDate(d, timeOfDay: rmc.timeOfDay) }
            guard rmc.isValid else { return }
            raiseMode(to: .twoD)
            current.latitude = rmc.latitude ?? current.latitude
            current.longitude = rmc.longitude ?? current.longitude
            current.speedMetersPerSecond = rmc.speedMetersPerSecond ?? current.speedMetersPerSecond
            current.trackDegrees = rmc.trackDegrees ?? current.trackDegrees
        case .gga(let gga):
            current.quality = gga.quality
            current.satellitesUsed = gga.satellitesUsed ?? current.satellitesUsed
            current.hdop = gga.hdop ?? current.hdop
            guard gga.isValid else { return }
            raiseMode(to: gga.altitudeMSL != nil ? .threeD : .twoD)
            current.latitude = gga.latitude ?? current.latitude
            current.longitude = gga.longitude ?? current.longitude
            current.altitudeMSL = gga.altitudeMSL ?? current.altitudeMSL
        case .gll(let gll):
            guard gll.isValid else { return }
            raiseMode(to: .twoD)
            current.latitude = gll.latitude ?? current.latitude
            current.longitude = gll.longitude ?? current.longitude
        case .gns(let gns):
            current.satellitesUsed = gns.satellitesUsed ?? current.satellitesUsed
            current.hdop = gns.hdop ?? current.hdop
            guard gns.isValid else { return }
            raiseMode(to: gns.altitudeMSL != nil ? .threeD : .twoD)
            current.latitude = gns.latitude ?? current.latitude
            current.longitude = gns.longitude ?? current.longitude
            current.altitudeMSL = gns.altitudeMSL ?? current.altitudeMSL
        case .vtg(let vtg):
            guard vtg.isValid else { return }
            current.speedMetersPerSecond = vtg.speedMetersPerSecond ?? current.speedMetersPerSecond
            current.trackDegrees = vtg.trackDegrees ?? current.trackDegrees
        case .gsa(let gsa):
            current.pdop = gsa.pdop ?? current.pdop
            current.hdop = gsa.hdop ?? current.hdop
            current.vdop = gsa.vdop ?? current.vdop
            // GSA's fix type is the receiver's own verdict, but only a GGA/RMC/GLL/GNS position makes a fix.
            if let type = gsa.fixType, type == 3, current.mode == .twoD { current.mode = .threeD }
        case .zda(let zda):
            if let d = zda.date { setDate(d, timeOfDay: zda.timeOfDay) }
        case .gsv(let gsv):
            // Count each talker's (and NMEA 4.1 signal's) group once, on its first sentence.
            if gsv.sentenceNumber == 1, gsv.signalID == nil || gsv.signalID == 1, let n = gsv.satellitesInView {
                current.satellitesInView = (current.satellitesInView ?? 0) + n
            }
        case .txt:
            break
        }
    }
}
