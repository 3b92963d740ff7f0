import RidegateApp
import RidegateCore

/// The demo's ride second by second: speed and grade read from an NMEA capture through the real parser (the
/// simulated sensors make heart rate and power from them), or a head unit's recorded ride (`RecordedRide`:
/// positions, and the heart rate, power and cadence it recorded, which the sensors send as they are).
struct RideProfile: Sendable {
    struct Sample: Sendable {
        var offset: Double
        var speed: Double
        var grade: Double
        /// What a recorded ride says at this second (nil: the recording has none, or this is a capture).
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
        var heartRate: Int?
        var power: Int?
        var cadence: Int?
        var speedRecorded = false
        /// A head unit's record (what it did not record, a sensor does not send), not a capture's sample.
        var recorded = false

        init(offset: Double, speed: Double, grade: Double) {
            self.offset = offset
            self.speed = speed
            self.grade = grade
        }
    }

    /// Each second's motion, all a capture has (24 bytes a second), and what a recording adds beside it (nil
    /// for a capture): the bundled ride's 1 825 seconds keep 44 KB for the whole demo, where a whole `Sample`
    /// each kept 234 KB.
    private let motion: [Motion]
    private let recordings: [Recording]?
    /// For a recording: how long a sample holds (its records may be seconds apart); past it, a gap in which the
    /// sensors send nothing. nil for a capture: the last sample holds.
    let holdsFor: Double?

    private struct Motion {
        var offset: Double
        var speed: Double
        var grade: Double
    }

    private struct Recording {
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
        var heartRate: Int?
        var power: Int?
        var cadence: Int?
        var speedRecorded: Bool
        var recorded: Bool
    }

    init(samples: [Sample], holdsFor: Double? = nil) {
        motion = samples.map { Motion(offset: $0.offset, speed: $0.speed, grade: $0.grade) }
        recordings = samples.contains(where: \.recorded) ? samples.map {
            Recording(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude, heartRate: $0.heartRate, power: $0.power,
                      cadence: $0.cadence, speedRecorded: $0.speedRecorded, recorded: $0.recorded)
        } : nil
        self.holdsFor = holdsFor
    }

    /// The samples in order, made as they are read.
    var samples: Samples { Samples(profile: self) }

    struct Samples: RandomAccessCollection {
        fileprivate let profile: RideProfile
        var startIndex: Int { 0 }
        var endIndex: Int { profile.motion.count }
        subscript(index: Int) -> Sample { profile.sample(index) }
    }

    private func sample(_ index: Int) -> Sample {
        let m = motion[index]
        var sample = Sample(offset: m.offset, speed: m.speed, grade: m.grade)
        guard let r = recordings?[index] else { return sample }
        sample.latitude = r.latitude
        sample.longitude = r.longitude
        sample.altitude = r.altitude
        sample.heartRate = r.heartRate
        sample.power = r.power
        sample.cadence = r.cadence
        sample.speedRecorded = r.speedRecorded
        sample.recorded = r.recorded
        return sample
    }

    /// Builds the profile from a capture fed in pieces, keeping only the samples and the last few fixes
    /// (the grade looks five fixes back), not every fix of the ride.
    struct Builder {
        private var splitter = LineSplitter()
        private let decoder = NMEADecoder()
        private var assembler = FixAssembler()
        private var recent: [GPSFix] = []
        private var start: Timestamp?
        private var samples: [Sample] = []

        mutating func add(_ bytes: ArraySlice<UInt8>) {
            var fixes: [GPSFix] = []
            splitter.append(bytes) { line in
                if case .decoded(let sentence) = decoder.decode(line: line) { fixes += assembler.consume(sentence) }
            }
            for fix in fixes { add(fix) }
        }

        mutating func finish() -> RideProfile {
            if let last = assembler.flush() { add(last) }
            return RideProfile(samples: samples)
        }

        private mutating func add(_ fix: GPSFix) {
            guard fix.hasPosition, let time = fix.time else { return }
            let start = self.start ?? time
            self.start = start
            var grade = 0.0
            if let back = recent.first, let a0 = back.altitudeMSL, let a1 = fix.altitudeMSL,
               let la0 = back.latitude, let lo0 = back.longitude, let la1 = fix.latitude, let lo1 = fix.longitude {
                let run = GreatCircle.distanceMeters(lat1: la0, lon1: lo0, lat2: la1, lon2: lo1)
                if run > 5 { grade = max(-0.2, min(0.2, (a1 - a0) / run)) }
            }
            samples.append(Sample(offset: time - start, speed: fix.speedMetersPerSecond ?? 0, grade: grade))
            recent.append(fix)
            if recent.count > 5 { recent.removeFirst() }
        }
    }

    var duration: Double { motion.last?.offset ?? 0 }

    func sample(at offset: Double) -> Sample? {
        guard !motion.isEmpty else { return nil }
        // Samples are one second apart; a binary search keeps this exact for any spacing.
        var low = 0, high = motion.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if motion[mid].offset <= offset { low = mid } else { high = mid - 1 }
        }
        if let holdsFor, offset - motion[low].offset > holdsFor || offset < motion[low].offset { return nil }
        return sample(low)
    }
}
