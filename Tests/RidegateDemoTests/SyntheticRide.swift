import Foundation
import RidegateCore
import RidegateDemo

/// Small head-unit rides made here, as FIT files written by ridegate's own FIT writer (which writes what a head
/// unit does: records, the session with its threshold_power): the odd cases a real file can hold, without the
/// reference corpus.
struct SyntheticRide {
    private(set) var points: [RidePoint] = []
    private var time = Timestamp(secondsSince1970: 1_782_028_800) // 2026-06-21T08:00:00Z
    private var position = (latitude: 40.0, longitude: -105.0)
    /// Metres the head unit counted (riding only: what its session's distance says).
    private(set) var distance = 0.0
    var heartRate: Int? = 140
    var power: Int? = 180
    var cadence: Double? = 85

    /// One record a second for `seconds`, riding north-east at `speed`.
    mutating func ride(_ seconds: Int, speed: Double) {
        for _ in 0..<seconds { record(after: 1, moved: speed, speed: speed) }
    }

    /// No records for `seconds`, then the next record `metres` away at `bearing` — a tunnel ridden through, or a
    /// head unit paused while its positions drifted.
    mutating func gap(_ seconds: Int, metres: Double, bearing: Double, counted: Bool, speed: Double) {
        move(metres, bearing: bearing)
        if counted { distance += metres }
        time = time + Double(seconds)
        append(speed: speed)
    }

    private mutating func record(after seconds: Double, moved metres: Double, speed: Double) {
        move(metres, bearing: 45)
        distance += metres
        time = time + seconds
        append(speed: speed)
    }

    private mutating func move(_ metres: Double, bearing degrees: Double) {
        let radians = degrees * .pi / 180
        position.latitude += metres * cos(radians) / 111_320
        position.longitude += metres * sin(radians) / (111_320 * cos(position.latitude * .pi / 180))
    }

    private mutating func append(speed: Double) {
        points.append(RidePoint(time: time, latitude: position.latitude, longitude: position.longitude, altitude: 1600, speed: speed,
                                distance: distance, moving: speed >= 1, heartRate: heartRate, cadence: cadence, power: power))
    }

    /// The ride as a FIT activity, its FTP (if any) only in the session's threshold_power.
    func fit(ftp: Int? = nil) -> [UInt8] {
        RideFileFormat.fit.write(points, name: "synthetic", creator: "ridegate tests", serialNumber: 1,
                                 context: .init(ftp: ftp))
    }

    /// Written to a temporary file for `ridegate demo --ride`.
    func write(ftp: Int? = nil) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rg-synthetic-\(UUID().uuidString).fit").path
        try Data(fit(ftp: ftp)).write(to: URL(fileURLWithPath: path))
        return path
    }
}
