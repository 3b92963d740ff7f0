import Foundation
@testable import RidegateApp
@testable import RidegateDemo
import RidegateCore
import RidegateTestSupport
import Testing

/// The simulated sensors' speed and grade, read from the demo's ride as it is read from disk: in pieces.
struct RideProfileTests {
    private let ride: [UInt8]

    init() throws {
        ride = try [UInt8](Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.repository + "/demo/ride.nmea")))
    }

    private func profile(chunk: Int) -> RideProfile {
        var builder = RideProfile.Builder()
        var start = 0
        while start < ride.count {
            let end = min(ride.count, start + chunk)
            builder.add(ride[start..<end])
            start = end
        }
        return builder.finish()
    }

    /// The old whole-capture algorithm, kept here to compare: every located fix, grade over five fixes back.
    private func reference() -> [RideProfile.Sample] {
        var splitter = LineSplitter()
        let decoder = NMEADecoder()
        var assembler = FixAssembler()
        var fixes: [GPSFix] = []
        splitter.append(ride) { line in
            if case .decoded(let sentence) = decoder.decode(line: line) { fixes += assembler.consume(sentence) }
        }
        if let last = assembler.flush() { fixes.append(last) }
        let located = fixes.filter { $0.hasPosition && $0.time != nil }
        guard let start = located.first?.time else { return [] }
        var samples: [RideProfile.Sample] = []
        for (index, fix) in located.enumerated() {
            var grade = 0.0
            let back = max(0, index - 5)
            if index > back, let a0 = located[back].altitudeMSL, let a1 = fix.altitudeMSL,
               let la0 = located[back].latitude, let lo0 = located[back].longitude, let la1 = fix.latitude, let lo1 = fix.longitude {
                let run = GreatCircle.distanceMeters(lat1: la0, lon1: lo0, lat2: la1, lon2: lo1)
                if run > 5 { grade = max(-0.2, min(0.2, (a1 - a0) / run)) }
            }
            samples.append(.init(offset: (fix.time ?? start) - start, speed: fix.speedMetersPerSecond ?? 0, grade: grade))
        }
        return samples
    }

    /// Read a byte at a time, the capture is seconds of work in a debug build: done on a thread of its own, not on one
    /// of the suite's two cooperative threads, which the async tests beside it wait for.
    @Test func readInPiecesItIsTheWholeCapturesProfile() async throws {
        let test = self
        let (expected, read) = try await OffThePool.run { (test.reference(), [1, 4096, test.ride.count].map { test.profile(chunk: $0).samples }) }
        for samples in read {
            #expect(samples.count == expected.count)
            #expect(zip(samples, expected).allSatisfy { $0.offset == $1.offset && $0.speed == $1.speed && $0.grade == $1.grade })
        }
        // The bundled ride: 1 825 located fixes a second apart, most of them on a grade.
        #expect(expected.count == 1825)
        #expect(expected.last?.offset == 1824)
        #expect(expected.filter { $0.grade != 0 }.count > 1000)
    }
}
