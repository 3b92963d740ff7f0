import Glibc
import RidegateCore

/// How hard a rider works at a speed and grade, and how the heart follows: cycling power from rolling
/// resistance, gravity and air drag, mapped onto the heart-rate reserve, then a first-order lag (the heart
/// takes tens of seconds to catch up with effort, faster going up than coming down).
struct EffortModel: Sendable {
    var restingHeartRate = 62.0
    var maxHeartRate = 186.0
    var riderAndBikeKilograms = 85.0
    /// Power the rider holds at about 90 % of heart-rate reserve.
    var thresholdWatts = 230.0
    var riseTimeConstant = 22.0
    var fallTimeConstant = 45.0

    func watts(speed: Double, grade: Double) -> Double {
        let g = 9.81, crr = 0.005, cdA = 0.38, rho = 1.2
        let force = riderAndBikeKilograms * g * (crr + grade) + 0.5 * rho * cdA * speed * speed
        return max(0, force * speed)
    }

    func steadyStateHeartRate(watts: Double) -> Double {
        let fraction = min(1.05, 0.12 + 0.78 * watts / thresholdWatts)
        return restingHeartRate + (maxHeartRate - restingHeartRate) * fraction
    }

    /// One step of the heart's response toward `target` over `dt` seconds.
    func respond(current: Double, target: Double, dt: Double) -> Double {
        let tau = target > current ? riseTimeConstant : fallTimeConstant
        return current + (target - current) * (1 - exp(-dt / tau))
    }
}

/// Speed and grade second by second, read from the ride's own NMEA through the real parser.
struct RideProfile: Sendable {
    struct Sample: Sendable {
        var offset: Double
        var speed: Double
        var grade: Double
    }

    let samples: [Sample]

    private init(samples: [Sample]) {
        self.samples = samples
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

    var duration: Double { samples.last?.offset ?? 0 }

    func sample(at offset: Double) -> Sample? {
        guard !samples.isEmpty else { return nil }
        // Samples are one second apart; a binary search keeps this exact for any spacing.
        var low = 0, high = samples.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if samples[mid].offset <= offset { low = mid } else { high = mid - 1 }
        }
        return samples[low]
    }
}
