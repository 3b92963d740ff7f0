import RidegateApp
import RidegateCore
import RidegateLinux

/// A ride a head unit recorded (a FIT activity), made into the demo's ride: its records second by second, and
/// which sensors it had — a strap when it recorded heart rate, a power meter when it recorded power, a
/// speed/cadence sensor when it lists one among its devices or recorded speed with no GPS.
///
/// The file is outside input: a value the replay cannot send as a sensor would (heart rate 0, which a head unit
/// records when no strap is paired; power past what a rider makes; a speed from a distance that jumps) is read as
/// no reading, and `notes` says so once per kind.
struct RecordedRide: Sendable {
    let profile: RideProfile
    let start: Timestamp
    let hasPositions: Bool
    let hasHeartRate: Bool
    let hasPower: Bool
    let hasSpeedSensor: Bool
    /// The rider's FTP as the head unit had it (the session's threshold_power, else its zones target's), when
    /// it is one the config would accept.
    let ftp: Int?
    /// What of the file the replay leaves out, and why: for the demo's log.
    let notes: [String]

    /// The largest file read: a day of one-second records is a few megabytes.
    static let maximumBytes = 64 << 20
    /// What a strap can report and a power meter's rider can make; a record past these is read as no reading.
    static let heartRates = 20...250
    static let powers = 0...3000
    /// Faster than this (m/s, 180 km/h) is a distance that jumped, not riding.
    static let maximumSpeed = 50.0
    /// A file longer than this is not one ride (the demo would replay it for days).
    static let maximumDuration = 7 * 86_400.0

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
        try self.init(bytes: bytes, name: path)
    }

    init(bytes: [UInt8], name: String) throws(LoadError) {
        let file: FITActivityFile
        do {
            file = try FITActivityFile(bytes)
        } catch {
            throw LoadError(description: "\(name) is not a FIT activity ridegate can read: \(error)")
        }
        // A FIT time below 0x10000000 is the device's seconds since power-on, not a date (the FIT protocol's rule);
        // past 32 bits is no FIT date_time at all.
        let dated = (FITActivity.epochOffset + 0x1000_0000)...(FITActivity.epochOffset + Double(UInt32.max))
        let records = file.records.filter { dated.contains($0.time.secondsSince1970) }
        guard let first = records.first, let last = records.last else { throw LoadError(description: "\(name) has no dated records to ride") }
        guard last.time - first.time <= Self.maximumDuration else {
            throw LoadError(description: "\(name)'s records span \(Int(rounding: (last.time - first.time) / 86_400, within: 0...Int.max) ?? 0) days, from \(first.time.iso8601) to \(last.time.iso8601): not one ride")
        }
        start = first.time
        var samples: [RideProfile.Sample] = []
        samples.reserveCapacity(records.count)
        var previous: FITActivityFile.Record?
        var left = LeftOut()
        left.undated = file.records.count - records.count
        for record in records {
            samples.append(Self.sample(record, after: previous, from: first.time, leftOut: &left))
            previous = record
        }
        profile = RideProfile(samples: samples, holdsFor: RideStatistics.maximumGap)
        hasPositions = samples.contains { $0.latitude != nil }
        hasHeartRate = samples.contains { $0.heartRate != nil }
        hasPower = samples.contains { $0.power != nil }
        let listsSpeedSensor = file.devices.contains { [121, 123].contains($0.type ?? 0) }
        hasSpeedSensor = samples.contains(where: \.speedRecorded) && (listsSpeedSensor || !hasPositions)
        let stated = [file.sessions.first?.ftp, file.zonesFTP].compactMap { $0 }
        ftp = stated.first { GatewayConfig.Zones.ftpRange.contains($0) }
        var notes = left.notes(heartRateEverywhere: !hasHeartRate && left.heartRates > 0)
        if ftp == nil, let refused = stated.first { notes.append("its FTP of \(refused) W is not one ridegate accepts (\(GatewayConfig.Zones.ftpRange)): power zones from zones.ftp or the simulated rider's") }
        self.notes = notes
    }

    /// Records' values the replay could not use, counted for the notes.
    private struct LeftOut {
        var heartRates = 0
        var powers = 0
        var speeds = 0
        var undated = 0

        func notes(heartRateEverywhere: Bool) -> [String] {
            var notes: [String] = []
            if heartRateEverywhere {
                notes.append("its heart rate is 0 or out of range on every record (no strap paired): the replay rides without a strap")
            } else if heartRates > 0 {
                notes.append("\(heartRates) records' heart rate is 0 or out of range (\(RecordedRide.heartRates) bpm): read as no reading")
            }
            if powers > 0 { notes.append("\(powers) records' power is past \(RecordedRide.powers.upperBound) W: read as no reading") }
            if speeds > 0 { notes.append("\(speeds) records' speed is past \(Int(RecordedRide.maximumSpeed)) m/s (a distance that jumped): read as standing") }
            if undated > 0 { notes.append("\(undated) records are not dated in UTC (a device's time since power-on): left out") }
            return notes
        }
    }

    private static func sample(_ record: FITActivityFile.Record, after previous: FITActivityFile.Record?, from start: Timestamp,
                               leftOut left: inout LeftOut) -> RideProfile.Sample {
        var sample = RideProfile.Sample(offset: record.time - start, speed: 0, grade: 0)
        sample.recorded = true
        let dt = previous.map { record.time - $0.time } ?? 0
        var travelled: Double?
        if let now = record.distance, let before = previous?.distance { travelled = now - before }
        let speed = record.speed ?? travelled.flatMap { dt > 0 ? max(0, $0) / dt : nil } ?? 0
        if speed.isFinite, speed <= maximumSpeed { sample.speed = speed } else { left.speeds += 1 }
        sample.speedRecorded = record.speed != nil || record.distance != nil
        if let travelled, travelled > 1, let a = record.altitude, let b = previous?.altitude {
            sample.grade = max(-0.2, min(0.2, (a - b) / travelled))
        }
        sample.latitude = record.latitude
        sample.longitude = record.longitude
        sample.altitude = record.altitude
        sample.heartRate = record.heartRate.flatMap { heartRates.contains($0) ? $0 : nil }
        if record.heartRate != nil, sample.heartRate == nil { left.heartRates += 1 }
        sample.power = record.power.flatMap { powers.contains($0) ? $0 : nil }
        if record.power != nil, sample.power == nil { left.powers += 1 }
        sample.cadence = record.cadence
        return sample
    }

    /// The replay's whole plan for `bytes` as the demo would ride it — the file read, every second of the profile
    /// through each sensor's signal —, each measurement handed to `body`: what the FIT fuzz target drives, so a
    /// file's values are checked from the parser to the notifications a replay sends.
    static func rehearse(_ bytes: [UInt8], _ body: (BluetoothUUID, [UInt8]) -> Void) throws(LoadError) {
        let ride = try RecordedRide(bytes: bytes, name: "the file")
        var signals: [any SimulatedSignal] = [HeartRateSignal(), PowerSignal(sendsWheel: false), SpeedCadenceSignal()]
        // Each record's second, and the silence of a gap after it (a sensor's ticks between records send the
        // record that holds, or nothing): the values the replay's sensors meet, without ticking through a long gap.
        var previous: Double?
        for sample in ride.profile.samples {
            let gap = previous.map { sample.offset - $0 } ?? 0
            for index in signals.indices {
                if gap > (ride.profile.holdsFor ?? .infinity), let (characteristic, value) = signals[index].next(nil, dt: 1) {
                    body(characteristic, value)
                }
                if let (characteristic, value) = signals[index].next(sample, dt: 1) { body(characteristic, value) }
            }
            previous = sample.offset
        }
    }
}

/// A recorded ride's replay plan, for the FIT fuzz target: `RecordedRide.rehearse`, outside the demo.
public enum RecordedRideRehearsal {
    /// Hands `body` every measurement a replay of `bytes` would send; false when the demo would refuse the file.
    public static func run(_ bytes: [UInt8], _ body: (BluetoothUUID, [UInt8]) -> Void) -> Bool {
        do {
            try RecordedRide.rehearse(bytes, body)
            return true
        } catch {
            return false
        }
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
    let start: RideSchedule
    let logger: Logger
    /// Waits out a reader that is not draining, and the last record's second.
    let loop: EventLoop

    func play(into pty: PseudoTerminal) async {
        guard NMEAReplayer.prepare(pty, logger: logger) else { return }
        let dated = startAt ?? ride.start
        start.joins(NMEAReplayer.part)
        defer { start.leaves(NMEAReplayer.part) }
        let origin = await start.origin()
        // A receiver searches before its first fix: two epochs without one, from which the reader learns how the
        // receiver's cycle ends, so the ride's first fix is not held up until the second record (seconds later).
        let searching = (NMEASentenceWriter.searching(time: dated + -2) + NMEASentenceWriter.searching(time: dated + -1)).joined(separator: "\r\n") + "\r\n"
        guard await NMEAReplayer.write(Array(searching.utf8), to: pty.controller, loop: loop, logger: logger) else { return }
        var previous: RideProfile.Sample?
        var course: (latitude: Double, longitude: Double)?
        for sample in ride.profile.samples {
            guard let latitude = sample.latitude, let longitude = sample.longitude else { continue }
            // A receiver sends a fix every second, whatever the head unit recorded (smart recording keeps one every
            // few seconds): the seconds between two records close enough to be riding are filled in along the line.
            var epochs: [(offset: Double, latitude: Double, longitude: Double, altitude: Double?, speed: Double)] = []
            if let previous, let lat0 = previous.latitude, let lon0 = previous.longitude,
               sample.offset - previous.offset <= RideStatistics.maximumGap {
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
                await start.waits(NMEAReplayer.part, for: epoch.offset, speed: speed, origin: origin)
                let time = dated + epoch.offset
                let bearing = course.map {
                    GreatCircle.bearingDegrees(lat1: $0.latitude, lon1: $0.longitude, lat2: epoch.latitude, lon2: epoch.longitude)
                }
                course = (epoch.latitude, epoch.longitude)
                let text =
                    NMEASentenceWriter.rmc(time: time, latitude: epoch.latitude, longitude: epoch.longitude, speed: epoch.speed, course: bearing)
                    + "\r\n"
                    + NMEASentenceWriter.gga(time: time, latitude: epoch.latitude, longitude: epoch.longitude, altitude: epoch.altitude) + "\r\n"
                guard await NMEAReplayer.write(Array(text.utf8), to: pty.controller, loop: loop, logger: logger) else { return }
            }
        }
        // The last record held for its second, then the ride is over.
        await start.waits(NMEAReplayer.part, for: (previous?.offset ?? 0) + 1, speed: speed, origin: origin)
        logger.info("the recorded ride has ended")
    }
}
