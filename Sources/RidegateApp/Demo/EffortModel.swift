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

    init(nmea: [UInt8]) {
        var splitter = LineSplitter()
        let decoder = NMEADecoder()
        var assembler = FixAssembler()
        var fixes: [GPSFix] = []
        splitter.append(nmea) { line in
            if case .decoded(let sentence) = decoder.decode(line: line) { fixes += assembler.consume(sentence) }
        }
        if let last = assembler.flush() { fixes.append(last) }
        let located = fixes.filter { $0.hasPosition && $0.time != nil }
        var samples: [Sample] = []
        guard let start = located.first?.time else {
            self.samples = []
            return
        }
        for (index, fix) in located.enumerated() {
            var grade = 0.0
            let back = max(0, index - 5)
            if index > back, let a0 = located[back].altitudeMSL, let a1 = fix.altitudeMSL,
               let la0 = located[back].latitude, let lo0 = located[back].longitude, let la1 = fix.latitude, let lo1 = fix.longitude {
                let run = GreatCircle.distanceMeters(lat1: la0, lon1: lo0, lat2: la1, lon2: lo1)
                if run > 5 { grade = max(-0.2, min(0.2, (a1 - a0) / run)) }
            }
            samples.append(Sample(offset: (fix.time ?? start) - start, speed: fix.speedMetersPerSecond ?? 0, grade: grade))
        }
        self.samples = samples
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
