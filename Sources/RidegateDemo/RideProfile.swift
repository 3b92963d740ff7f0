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

    /// A capture keeps each second's motion, all it has (24 bytes a second: the bundled ride's 1 825 seconds in
    /// 44 KB for the whole demo, where a whole `Sample` each took 234 KB); a recording keeps its samples whole.
    private let seconds: Seconds
    /// For a recording: how long a sample holds (its records may be seconds apart); past it, a gap in which the
    /// sensors send nothing. nil for a capture: the last sample holds.
    let holdsFor: Double?
    /// Where the ride starts (its first position), if it has positions.
    let startPosition: (latitude: Double, longitude: Double)?

    private struct Motion {
        var offset: Double
        var speed: Double
        var grade: Double
    }

    private enum Seconds {
        case motion([Motion])
        case recorded([Sample])
    }

    init(samples: [Sample], holdsFor: Double? = nil, startPosition: (latitude: Double, longitude: Double)? = nil) {
        seconds = samples.contains(where: \.recorded)
            ? .recorded(samples) : .motion(samples.map { Motion(offset: $0.offset, speed: $0.speed, grade: $0.grade) })
        self.holdsFor = holdsFor
        self.startPosition = startPosition ?? samples.lazy.compactMap { sample in
            sample.latitude.flatMap { latitude in sample.longitude.map { (latitude: latitude, longitude: $0) } }
        }.first
    }

    /// The samples in order, made as they are read.
    var samples: Samples { Samples(profile: self) }

    struct Samples: RandomAccessCollection {
        fileprivate let profile: RideProfile
        var startIndex: Int { 0 }
        var endIndex: Int { profile.count }
        subscript(index: Int) -> Sample { profile.sample(index) }
    }

    private var count: Int {
        switch seconds {
        case .motion(let motion): motion.count
        case .recorded(let samples): samples.count
        }
    }

    private func offset(_ index: Int) -> Double {
        switch seconds {
        case .motion(let motion): motion[index].offset
        case .recorded(let samples): samples[index].offset
        }
    }

    private func sample(_ index: Int) -> Sample {
        switch seconds {
        case .motion(let motion): Sample(offset: motion[index].offset, speed: motion[index].speed, grade: motion[index].grade)
        case .recorded(let samples): samples[index]
        }
    }

    /// Builds the profile from a capture fed in pieces, keeping only the samples and the last few fixes
    /// (the grade looks five fixes back), not every fix of the ride.
    struct Builder {
        private var splitter = LineSplitter()
        private let decoder = NMEADecoder()
        private var assembler = FixAssembler()
        private var recent: [GPSFix] = []
        private var start: Timestamp?
        private var startPosition: (latitude: Double, longitude: Double)?
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
            return RideProfile(samples: samples, startPosition: startPosition)
        }

        private mutating func add(_ fix: GPSFix) {
            guard fix.hasPosition, let time = fix.time else { return }
            let start = self.start ?? time
            self.start = start
            if startPosition == nil, let latitude = fix.latitude, let longitude = fix.longitude { startPosition = (latitude, longitude) }
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

    var duration: Double { count > 0 ? offset(count - 1) : 0 }

    func sample(at offset: Double) -> Sample? {
        guard count > 0 else { return nil }
        // Samples are one second apart; a binary search keeps this exact for any spacing.
        var low = 0, high = count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if self.offset(mid) <= offset { low = mid } else { high = mid - 1 }
        }
        if let holdsFor, offset - self.offset(low) > holdsFor || offset < self.offset(low) { return nil }
        return sample(low)
    }
}
