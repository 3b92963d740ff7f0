import Foundation
@testable import RidegateApp
@testable import RidegateDemo
import RidegateCore
import RidegateTestSupport
import Testing

/// The demo's receiver groups its capture into epochs while reading it, a few kilobytes at a time.
struct NMEAEpochGrouperTests {
    private func epochs(of text: String, chunk: Int) -> [NMEAEpochGrouper.Epoch] {
        epochs(of: Array(text.utf8), chunk: chunk)
    }

    private func epochs(of bytes: [UInt8], chunk: Int) -> [NMEAEpochGrouper.Epoch] {
        var splitter = LineSplitter(maximumLength: 4096)
        var grouper = NMEAEpochGrouper()
        var result: [NMEAEpochGrouper.Epoch] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            splitter.append(bytes[start..<end]) { line in
                if let finished = grouper.add(line: line) { result.append(finished) }
            }
            start = end
        }
        if let last = grouper.finish() { result.append(last) }
        return result
    }

    @Test func linesSharingATimeAreOneEpochAndUntimedLinesJoinTheCurrentOne() {
        let gga1 = "$GPGGA,160000.00,4000.89995,N,10516.23015,W,1,09,0.90,1654.9,M,-18.4,M,,*50"
        let gsa = "$GPGSA,A,3,02,05,07,09,13,15,18,20,27,,,,1.50,0.90,1.30*0C"
        let rmc1 = "$GPRMC,160000.00,A,4000.89995,N,10516.23015,W,0.596,276.63,210626,,,A*70"
        let gga2 = "$GPGGA,160001.00,4000.89993,N,10516.23030,W,1,09,0.98,1654.6,M,-18.4,M,,*57"
        // LF-only lines leave with CR LF, as a receiver sends them; CR LF lines keep one CR.
        let text = "\(gsa)\n\(gga1)\r\n\(gsa)\n\(rmc1)\n\(gga2)\n"
        let expected: [NMEAEpochGrouper.Epoch] = [
            .init(timeOfDay: nil, bytes: Array((gsa + "\r\n").utf8)),
            .init(timeOfDay: 57_600, bytes: Array((gga1 + "\r\n" + gsa + "\r\n" + rmc1 + "\r\n").utf8)),
            .init(timeOfDay: 57_601, bytes: Array((gga2 + "\r\n").utf8)),
        ]
        for chunk in [1, 7, 4096] {
            let result = epochs(of: text, chunk: chunk)
            #expect(result == expected, "chunk \(chunk)")
        }
    }

    @Test func theBundledRideReadInSmallPiecesIsTheSameRideAsReadWhole() throws {
        let ride = try [UInt8](Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.repository + "/demo/ride.nmea")))
        let whole = epochs(of: ride, chunk: ride.count)
        let pieces = epochs(of: ride, chunk: 4096)
        #expect(whole.count > 1000)
        #expect(pieces == whole)
        // Every byte of the (CR LF) capture is played, once, in order.
        #expect(whole.flatMap(\.bytes) == ride)
        let times = whole.compactMap(\.timeOfDay)
        #expect(times.count == whole.count)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }
}
