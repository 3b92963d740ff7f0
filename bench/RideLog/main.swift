import Glibc
import RidegateCore
import RidegateLinux

// The ride log's cost on an SD card and the exporters' speed, for scripts/bench (not a test).
//
//   ridegate-ridelog-bench DIR [HOURS] [RATE_HZ]
//
// Records HOURS of a synthetic ride at RATE_HZ through the real SQLiteRideStore, once in the gateway's
// 5-second batches and once a transaction per point (the naive design, as the peer), and reports the bytes
// the kernel sent to the disk for each (/proc/self/io write_bytes, WAL checkpoints and close included). Then
// it exports the batched ride in each format and reports the median time of three and the file size.
// Output: one `key value` per line.

func writtenBytes() -> Int64 {
    guard let text = try? TextFile.read("/proc/self/io") else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("write_bytes:") {
        return Int64(line.split(separator: " ").last ?? "") ?? 0
    }
    return 0
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: ridegate-ridelog-bench DIR [HOURS] [RATE_HZ]")
    exit(64)
}
let directory = arguments[1]
let hours = arguments.count > 2 ? Double(arguments[2]) ?? 4 : 4
let rate = arguments.count > 3 ? Double(arguments[3]) ?? 1 : 1
let count = Int(hours * 3600 * rate)
let start = 1_782_057_600.0

/// A ride north and back at about 8 m/s, climbing and descending, with heart rate, cadence and power.
func point(_ index: Int) -> RidePoint {
    let t = Double(index) / rate
    let leg = (t.truncatingRemainder(dividingBy: 1200)) * 8 / 111_195
    return RidePoint(time: Timestamp(secondsSince1970: start + t), latitude: 40 + (Int(t / 1200) % 2 == 0 ? leg : 8 * 1200 / 111_195 - leg),
                     longitude: -105 + t * 0.000_001, altitude: 1600 + 80 * sin(t / 900), speed: 8, distance: t * 8,
                     heartRate: 120 + Int(20 * sin(t / 300)), cadence: 88, power: 180 + Int(40 * sin(t / 120)))
}

func record(path: String, batchSeconds: Double) -> (bytes: Int64, seconds: Double) {
    unlink(path)
    let before = writtenBytes()
    let began = SystemClock.monotonicSeconds()
    do {
        let store = try SQLiteRideStore(path: path)
        let perBatch = max(1, Int(batchSeconds * rate))
        var index = 0
        while index < count {
            try store.record((index..<min(count, index + perBatch)).map(point))
            index += perBatch
        }
    } catch {
        print("error \(error)")
        exit(1)
    }
    sync()
    return (writtenBytes() - before, SystemClock.monotonicSeconds() - began)
}

let batched = record(path: directory + "/batched.sqlite", batchSeconds: 5)
let single = record(path: directory + "/single.sqlite", batchSeconds: 0)
print("points \(count)")
print("batched_bytes \(batched.bytes)")
print("batched_seconds \(batched.seconds)")
print("single_bytes \(single.bytes)")
print("single_seconds \(single.seconds)")
var size = stat()
_ = stat(directory + "/batched.sqlite", &size)
print("file_bytes \(size.st_size)")

do {
    let store = try SQLiteRideStore(path: directory + "/batched.sqlite")
    guard let ride = try store.rides().first else { exit(1) }
    for format in RideFileFormat.allCases {
        var times: [Double] = []
        var bytes = 0
        for _ in 0..<3 {
            let began = SystemClock.monotonicSeconds()
            let points = try store.points(ride: ride.id)
            let file = format.write(points, name: ride.name, creator: "bench", serialNumber: 1)
            try TextFile.replace(directory + "/ride." + format.fileExtension, withBytes: file, mode: 0o644)
            times.append(SystemClock.monotonicSeconds() - began)
            bytes = file.count
        }
        print("export_\(format.rawValue)_seconds \(times.sorted()[1])")
        print("export_\(format.rawValue)_bytes \(bytes)")
    }
} catch {
    print("error \(error)")
    exit(1)
}
