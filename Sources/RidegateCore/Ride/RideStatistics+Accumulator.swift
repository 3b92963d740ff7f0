extension RideStatistics {
    /// Takes a ride's once-a-second points one at a time (pure: nothing but the points and the context).
    public struct Accumulator: Sendable {
        let context: Context
        private var before: RidePoint?
        private var first: RidePoint?
        private var last: RidePoint?
        private var timer = 0.0
        private var heartRate = WeightedMean()
        private var cadence = WeightedMean()
        private var power = WeightedMean()
        private var maximumHeartRate: Int?
        private var maximumCadence: Int?
        private var maximumPower: Int?
        private var maximumSpeed: Double?
        private var normalized = NormalizedPower()
        private var elevation = ElevationTotals()
        private var heartRateCalories = 0.0
        private var heartRateZones: ZoneTime?
        private var powerZones: ZoneTime?

        public init(context: Context, before: RidePoint? = nil) {
            self.context = context
            self.before = before
            heartRateZones = context.heartRateZones.map { ZoneTime(zones: $0) }
            powerZones = context.powerZones.map { ZoneTime(zones: $0) }
        }

        public mutating func add(_ point: RidePoint) {
            let previous = last ?? before
            if let previous, point.time <= previous.time { return } // not once a second, in order: skip it
            // The seconds this point stands for: since the previous one, or one after a gap (a paused head unit).
            let gap = previous.map { point.time - $0.time }
            let seconds = gap.map { $0 <= RideStatistics.maximumGap ? $0 : 1 } ?? 1
            if let gap, gap <= RideStatistics.maximumGap, point.moving { timer += gap }
            if first == nil { first = point }
            last = point
            if let speed = point.speed, speed.isFinite { maximumSpeed = max(maximumSpeed ?? 0, speed) }
            // Climbing counts while moving: a bike standing at a café does not climb, whatever GPS altitude does.
            if point.moving { elevation.add(altitude: point.altitude, hdop: nil, at: point.time) }
            if let hr = point.heartRate, hr > 0, hr < 300 {
                heartRate.add(Double(hr), seconds: seconds)
                maximumHeartRate = max(maximumHeartRate ?? 0, hr)
                heartRateZones?.add(value: hr, seconds: seconds)
                if point.moving, let rider = context.rider { heartRateCalories += rider.kilocaloriesPerSecond(heartRate: hr) * seconds }
            }
            if let rpm = point.cadence, rpm.isFinite, rpm > 0, rpm < 256 {
                cadence.add(rpm, seconds: seconds)
                maximumCadence = max(maximumCadence ?? 0, Int(rpm.rounded()))
            }
            if let watts = point.power, watts >= 0, watts < 65_535 {
                power.add(Double(watts), seconds: seconds)
                maximumPower = max(maximumPower ?? 0, watts)
                normalized.add(watts: Double(watts), seconds: Int(seconds.rounded()))
                powerZones?.add(value: watts, seconds: seconds)
            }
        }

        public var statistics: RideStatistics? {
            guard let first, let last else { return nil }
            let origin = before ?? first
            var s = RideStatistics(start: origin.time, end: last.time)
            s.timerSeconds = timer
            s.distanceMeters = max(0, last.distance - origin.distance)
            s.maximumSpeed = maximumSpeed
            s.averageHeartRate = heartRate.mean
            s.maximumHeartRate = maximumHeartRate
            s.averageCadence = cadence.mean
            s.maximumCadence = maximumCadence
            s.averagePower = power.mean
            s.maximumPower = maximumPower
            s.normalizedPower = normalized.value
            s.workJoules = power.mean == nil ? nil : power.weightedSum
            s.ascentMeters = elevation.gainMeters
            s.descentMeters = elevation.lossMeters
            // With a power meter, a kilojoule of work is about a kilocalorie spent (a body turns about a quarter of
            // what it burns into work, and a kcal is 4.184 kJ); without one, from heart rate if the rider is known.
            if let work = s.workJoules {
                s.calories = work / 1000
            } else if context.rider != nil, heartRate.mean != nil {
                s.calories = heartRateCalories
            }
            s.heartRateZoneSeconds = heartRateZones?.seconds
            s.powerZoneSeconds = powerZones?.seconds
            s.startPosition = first.position
            s.endPosition = last.position
            return s
        }
    }

    /// A mean over the time each value held.
    struct WeightedMean: Sendable {
        var weightedSum = 0.0
        var seconds = 0.0

        mutating func add(_ value: Double, seconds: Double) {
            weightedSum += value * seconds
            self.seconds += seconds
        }

        var mean: Double? { seconds > 0 ? weightedSum / seconds : nil }
    }

    /// Coggan's normalized power: the 30 s rolling average of each second's power, to the fourth power,
    /// averaged, and the fourth root taken. Needs 30 s of power before it has a value.
    struct NormalizedPower: Sendable {
        private var window: [Double] = []
        private var next = 0
        private var windowSum = 0.0
        private var fourthPowers = 0.0
        private var count = 0

        mutating func add(watts: Double, seconds: Int) {
            for _ in 0..<max(1, seconds) {
                if window.count < 30 {
                    window.append(watts)
                } else {
                    windowSum -= window[next]
                    window[next] = watts
                    next = (next + 1) % 30
                }
                windowSum += watts
                guard window.count == 30 else { continue }
                let rolling = windowSum / 30
                fourthPowers += rolling * rolling * rolling * rolling
                count += 1
            }
        }

        var value: Double? { count > 0 ? (fourthPowers / Double(count)).squareRoot().squareRoot() : nil }
    }
}
