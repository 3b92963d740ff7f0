import RidegateCore
import RidegateLinux

/// A ride a head unit recorded (a FIT activity), made into the demo's ride: its records second by second, and
/// which sensors it had — a strap when it recorded heart rate, a power meter when it recorded power, a
/// speed/cadence sensor when it lists one among its devices or recorded speed with no GPS.
struct RecordedRide: Sendable {
    let profile: RideProfile
    let start: Timestamp
    let hasPositions: Bool
    let hasHeartRate: Bool
    let hasPower: Bool
    let hasSpeedSensor: Bool
    /// The rider's FTP as the head unit had it.
    let thresholdPower: Int?

    /// The largest file read: a day of one-second records is a few megabytes.
    static let maximumBytes = 64 << 20

    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// Whether the file starts as a FIT file does (one that cannot be read is not: the NMEA path says why).
    static func isFIT(_ path: String) -> Bool {
        (try? TextFile.readBytes(path, limit: 12)).map { $0.count >= 12 && Array($0[8..<12]) == Array(".FIT".utf8) } ?? false
    }

    init(path: String) throws(LoadError) {
        let bytes: [UInt8]
        do {
            bytes = try TextFile.readBytes(path, limit: Self.maximumBytes)
        } catch {
            throw LoadError(description: "cannot read \(path): \(error)")
        }
        guard bytes.count <= Self.maximumBytes else { throw LoadError(description: "\(path) is over 64 MB: not a ride a head unit recorded") }
        let file: FITActivityFile
        do {
            file = try FITActivityFile(bytes)
        } catch {
            throw LoadError(description: "\(path) is not a FIT activity ridegate can read: \(error)")
        }
        guard let first = file.records.first else { throw LoadError(description: "\(path) has no records to ride") }
        start = first.time
        var samples: [RideProfile.Sample] = []
        samples.reserveCapacity(file.records.count)
        var previous: FITActivityFile.Record?
        for record in file.records {
            var sample = RideProfile.Sample(offset: record.time - first.time, speed: 0, grade: 0)
            sample.recorded = true
            let dt = previous.map { record.time - $0.time } ?? 0
            var travelled: Double?
            if let now = record.distance, let before = previous?.distance { travelled = now - before }
            sample.speed = record.speed ?? travelled.flatMap { dt > 0 ? max(0, $0) / dt : nil } ?? 0
            sample.speedRecorded = record.speed != nil || record.distance != nil
            if let travelled, travelled > 1, let a = record.altitude, let b = previous?.altitude { sample.grade = max(-0.2, min(0.2, (a - b) / travelled)) }
            sample.latitude = record.latitude
            sample.longitude = record.longitude
            sample.altitude = record.altitude
            sample.heartRate = record.heartRate
            sample.power = record.power
            sample.cadence = record.cadence
            samples.append(sample)
            previous = record
        }
        profile = RideProfile(samples: samples, holdsFor: RideStatistics.maximumGap)
        hasPositions = samples.contains { $0.latitude != nil }
        hasHeartRate = samples.contains { $0.heartRate != nil }
        hasPower = samples.contains { $0.power != nil }
        let listsSpeedSensor = file.devices.contains { [121, 123].contains($0.type ?? 0) }
        hasSpeedSensor = samples.contains(where: \.speedRecorded) && (listsSpeedSensor || !hasPositions)
        thresholdPower = file.sessions.first?.thresholdPower
    }
}

/// Plays a recorded ride's positions into the controller side of a pty as a receiver would send them (RMC and
/// GGA once a record), at the recording's own timing divided by `speed`, its gaps kept; moved in time so the
/// ride starts at `startAt` (nil: as recorded).
struct RecordedRideReplayer: Sendable {
    let ride: RecordedRide
    let speed: Double
    let startAt: Timestamp?
    /// When the ride's second 0 is, shared with the simulated sensors.
    let start: RideStart
    let logger: Logger

    func play(into pty: PseudoTerminal) async {
        guard NMEAReplayer.prepare(pty, logger: logger) else { return }
        let dated = startAt ?? ride.start
        let started = await start.origin()
        // A receiver searches before its first fix: two epochs without one, from which the reader learns how the
        // receiver's cycle ends, so the ride's first fix is not held up until the second record (seconds later).
        let searching = (NMEASentenceWriter.searching(time: dated + -2) + NMEASentenceWriter.searching(time: dated + -1)).joined(separator: "\r\n") + "\r\n"
        guard await NMEAReplayer.write(Array(searching.utf8), to: pty.controller, logger: logger) else { return }
        var previous: RideProfile.Sample?
        var course: (latitude: Double, longitude: Double)?
        for sample in ride.profile.samples {
            guard let latitude = sample.latitude, let longitude = sample.longitude else { continue }
            // A receiver sends a fix every second, whatever the head unit recorded (smart recording keeps one every
            // few seconds): the seconds between two records close enough to be riding are filled in along the line.
            var epochs: [(offset: Double, latitude: Double, longitude: Double, altitude: Double?, speed: Double)] = []
            if let previous, let lat0 = previous.latitude, let lon0 = previous.longitude, sample.offset - previous.offset <= RideStatistics.maximumGap {
                let gap = sample.offset - previous.offset
                var second = previous.offset + 1
                while second < sample.offset - 0.5 {
                    let f = (second - previous.offset) / gap
                    epochs.append((second, lat0 + (latitude - lat0) * f, lon0 + (longitude - lon0) * f,
                                   previous.altitude.flatMap { a in sample.altitude.map { a + ($0 - a) * f } },
                                   previous.speed + (sample.speed - previous.speed) * f))
                    second += 1
                }
            }
            epochs.append((sample.offset, latitude, longitude, sample.altitude, sample.speed))
            previous = sample
            for epoch in epochs {
                if Task.isCancelled { return }
                // Until the epoch's time from the start (not from the previous one's: no drift over a long ride).
                await EventLoop.sleep(seconds: max(0, started + epoch.offset / speed - SystemClock.monotonicSeconds()))
                let time = dated + epoch.offset
                let bearing = course.map { GreatCircle.bearingDegrees(lat1: $0.latitude, lon1: $0.longitude, lat2: epoch.latitude, lon2: epoch.longitude) }
                course = (epoch.latitude, epoch.longitude)
                let text = NMEASentenceWriter.rmc(time: time, latitude: epoch.latitude, longitude: epoch.longitude, speed: epoch.speed, course: bearing) + "\r\n"
                    + NMEASentenceWriter.gga(time: time, latitude: epoch.latitude, longitude: epoch.longitude, altitude: epoch.altitude) + "\r\n"
                guard await NMEAReplayer.write(Array(text.utf8), to: pty.controller, logger: logger) else { return }
            }
        }
        // The last record held for its second, then the ride is over.
        await EventLoop.sleep(seconds: 1 / speed)
        logger.info("the recorded ride has ended")
    }
}
