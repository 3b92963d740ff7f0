@testable import RidegateApp
@testable import RidegateDemo
import RidegateCore
import Testing

/// The simulated sensors turn a recording's values (outside input) into measurements: whatever a value is — NaN,
/// ±infinity, 0 — each signal sends a measurement its real decoder reads, and never traps.
struct SimulatedSignalsTests {
    static let odd: [Double] = [.nan, .infinity, -.infinity, 0, -1, 1e300]

    static func samples() -> [RideProfile.Sample?] {
        var samples: [RideProfile.Sample?] = [nil]
        for value in odd {
            samples.append(RideProfile.Sample(offset: value, speed: value, grade: value))
            var recorded = RideProfile.Sample(offset: 0, speed: value, grade: value)
            recorded.recorded = true
            recorded.speedRecorded = true
            recorded.heartRate = 0
            recorded.power = 0
            recorded.cadence = 0
            samples.append(recorded)
            for extreme in [Int.min, -1, 65_535, Int.max] {
                recorded.heartRate = extreme
                recorded.power = extreme
                recorded.cadence = extreme
                samples.append(recorded)
            }
        }
        return samples
    }

    @Test("Heart rate, power and speed/cadence signals: every odd value and step gives a measurement that decodes")
    func oddValuesDecode() throws {
        var signals: [any SimulatedSignal] = [HeartRateSignal(), PowerSignal(), PowerSignal(sendsWheel: false), SpeedCadenceSignal()]
        for sample in Self.samples() {
            for dt in Self.odd + [1] {
                for index in signals.indices {
                    guard let (characteristic, value) = signals[index].next(sample, dt: dt) else { continue }
                    switch characteristic {
                    case .heartRateMeasurement:
                        let m = try HeartRateMeasurement(decoding: value)
                        #expect(RecordedRide.heartRates.contains(m.beatsPerMinute))
                    case .cyclingPowerMeasurement: _ = try CyclingPowerMeasurement(decoding: value)
                    default: _ = try CyclingSpeedCadenceMeasurement(decoding: value)
                    }
                }
            }
        }
    }

    @Test("A recording's heart rate of 0 is no reading: the strap sends nothing for that second")
    func heartRateZeroIsNoReading() {
        var signal = HeartRateSignal()
        var sample = RideProfile.Sample(offset: 0, speed: 5, grade: 0)
        sample.recorded = true
        sample.heartRate = nil // what RecordedRide makes of 0
        #expect(signal.next(sample, dt: 1) == nil)
    }

    @Test("The ride files and the display take NaN, ±infinity and 0 in every measured value without a trap")
    func writersTakeOddValues() {
        let start = Timestamp(secondsSince1970: 1_782_028_800)
        var points: [RidePoint] = []
        for (index, value) in Self.odd.enumerated() {
            points.append(
                RidePoint(
                    time: start + Double(index), latitude: 40, longitude: -105, altitude: value, speed: value,
                    distance: Swift.max(0, value.isFinite ? value : 0),
                                    moving: true, heartRate: 120, cadence: value, power: 100))
        }
        var builder = RideSummary.Builder(laps: [], context: .init(powerZones: .power(ftp: 220)))
        for point in points { builder.add(point) }
        guard let summary = builder.finish() else {
            Issue.record("no summary")
            return
        }
        for format in RideFileFormat.allCases {
            var writer = format.writer(
                RideExport(summary: summary, name: "odd", creator: "tests", context: .init(powerZones: .power(ftp: 220)), ftp: 220))
            for point in points { writer.add(point) }
            writer.finish()
            #expect(!writer.take().isEmpty)
        }
        for value in Self.odd {
            _ = DisplayUnits.duration(seconds: value)
            _ = DisplayUnits().height(metres: value)
            _ = Timestamp(secondsSince1970: value).iso8601
        }
    }
}
