import Glibc
import RidegateCore
import Testing

/// A ride's totals as head units write them: timer time, averages over the time each reading held, normalized
/// power, calories, time in zone, and laps that tile the ride.
@Suite struct RideStatisticsTests {
    static let start = 1_782_057_600.0

    /// `seconds` points, one a second, 8 m/s except `stopped` seconds; power 200 W, heart rate 140, cadence 90.
    static func ride(_ seconds: Int, stopped: Range<Int> = 0..<0, gap: Range<Int> = 0..<0) -> [RidePoint] {
        var distance = 0.0
        return (0..<seconds).compactMap { s in
            guard !gap.contains(s) else { return nil }
            let moving = !stopped.contains(s)
            if moving && s > 0 { distance += 8 }
            return RidePoint(time: Timestamp(secondsSince1970: start + Double(s)), latitude: 40, longitude: -105, altitude: 1600,
                             speed: moving ? 8 : 0, distance: distance, moving: moving, heartRate: 140, cadence: moving ? 90 : 0,
                             power: moving ? 200 : 0)
        }
    }

    @Test("Timer time leaves out stops and gaps; elapsed keeps them; speed is distance over timer time")
    func timerTime() throws {
        let s = try #require(RideStatistics.of(Self.ride(600, stopped: 100..<160, gap: 300..<330)))
        #expect(s.elapsedSeconds == 599)
        // 599 one-second steps, less 60 stopped, less the 31 s across the gap (its first point stands for 1 s, not moving time).
        #expect(s.timerSeconds == 599 - 60 - 31, "\(s.timerSeconds)")
        #expect(s.averageSpeed.map { abs($0 - s.distanceMeters / s.timerSeconds) < 1e-9 } == true)
    }

    @Test("Power averages with its zeros and the stops, cadence without (coasting is not pedalling), work is power over time")
    func averages() throws {
        let s = try #require(RideStatistics.of(Self.ride(100, stopped: 50..<75)))
        #expect(s.averagePower == 150 && s.maximumPower == 200 && s.workJoules == 15_000)
        #expect(s.averageCadence == 90 && s.averageHeartRate == 140)
        // Steady power: normalized equals average over the pedalled part's 30 s windows... and it exceeds average with the stop.
        #expect(try #require(s.normalizedPower) > 150)
        #expect(s.calories == 15, "1 kJ of work is about 1 kcal spent")
    }

    @Test("Calories: from work with a power meter, from heart rate when the rider is known, absent otherwise (never 0 for unknown)")
    func calories() throws {
        let noPower = Self.ride(600).map { p -> RidePoint in var q = p; q.power = nil; return q }
        #expect(RideStatistics.of(noPower)?.calories == nil)
        let rider = RiderProfile(weightKilograms: 75, age: 40, sex: .male)
        let known = try #require(RideStatistics.of(noPower, context: .init(rider: rider))?.calories)
        // Keytel: (-55.0969 + 0.6309·140 + 0.1988·75 + 0.2017·40) / 4.184 ≈ 13.43 kcal a minute, for 599 moving seconds.
        #expect(abs(known - 13.43 * 599 / 60) < 0.5, "\(known)")
        #expect(
            try #require(RideStatistics.of(noPower, context: .init(rider: RiderProfile(weightKilograms: 60, age: 30, sex: .female)))?.calories)
                < known)
    }

    @Test("A stop climbs nothing, whatever GPS altitude does meanwhile: 20 minutes at a café wandering 12 m up and down, slowly enough to pass for a road")
    func standstillClimbsNothing() throws {
        // Level while riding; while stopped (seconds 300–1 500) the altitude swings ±12 m over four minutes at a
        // time (a city's multipath), and is back where it was when the ride goes on.
        let points = Self.ride(1_800, stopped: 300..<1_500).map { point -> RidePoint in
            var wandering = point
            let second = point.time.secondsSince1970 - Self.start
            if (300..<1_500).contains(second) { wandering.altitude = 1_600 + 12 * sin((second - 300) / 240 * 2 * .pi) }
            return wandering
        }
        let s = try #require(RideStatistics.of(points))
        #expect(s.ascentMeters < 1, "\(s.ascentMeters) m climbed standing still")
    }

    @Test("Time in zone from each second's reading")
    func zones() throws {
        let s = try #require(RideStatistics.of(Self.ride(100, stopped: 50..<75),
                context: .init(heartRateZones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), powerZones: .power(ftp: 250))))
        #expect(s.heartRateZoneSeconds == [0, 0, 0, 100, 0, 0]) // 140 bpm: zone 3 (133-151) of 190
        // 200 W is zone 3 (190-227 W); the 25 stopped seconds at 0 W are below zone 1.
        #expect(s.powerZoneSeconds == [25, 0, 0, 75, 0, 0, 0, 0])
    }

    @Test("Laps tile the ride: their elapsed and timer times and distances add up to the ride's exactly")
    func lapsTile() throws {
        let points = Self.ride(900, stopped: 400..<450)
        let marks = [LapMark(time: Timestamp(secondsSince1970: Self.start + 300.5), trigger: .manual),
                     LapMark(time: Timestamp(secondsSince1970: Self.start + 600), trigger: .distance),
                     LapMark(time: Timestamp(secondsSince1970: Self.start + 5000), trigger: .manual)] // after the ride: no lap
        let summary = try #require(RideSummary.of(points, laps: marks, context: .init()))
        #expect(summary.laps.map(\.trigger) == [.manual, .distance, .end])
        let laps = summary.laps.map(\.statistics)
        #expect(laps.map(\.elapsedSeconds).reduce(0, +) == summary.statistics.elapsedSeconds)
        #expect(laps.map(\.timerSeconds).reduce(0, +) == summary.statistics.timerSeconds)
        #expect(laps.map(\.distanceMeters).reduce(0, +) == summary.statistics.distanceMeters)
        #expect(laps[1].start == laps[0].end && laps[2].start == laps[1].end)
        #expect(summary.records == 900)
    }

    @Test("At 10 Hz the totals are the once-a-second points': a record per second")
    func onceASecond() throws {
        let tenHertz = (0..<6000).map { i in
            RidePoint(time: Timestamp(secondsSince1970: Self.start + Double(i) / 10), speed: 8, distance: Double(i) * 0.8, moving: true, power: 200)
        }
        let summary = try #require(RideSummary.of(tenHertz, laps: [], context: .init()))
        #expect(summary.records == 600 && summary.statistics.timerSeconds == 599)
    }
}
