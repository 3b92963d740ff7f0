/// A ride as a FIT activity file, written the way head units write theirs, so Strava, Garmin Connect,
/// TrainingPeaks and GoldenCheetah read the right numbers: file_id and file_creator; a device_info for the gateway
/// and one per sensor that rode along; timer start and stop events where the ride stopped and moved on (timer
/// time is moving time); one record a second; a lap message when each lap ends and the session with the whole
/// ride's totals, each followed by its time in zone; and the activity with the local time.
///
/// Field numbers, base types, scales and invalid values are the FIT profile's (21.40); times are seconds since
/// the FIT epoch (1989-12-31T00:00:00Z). See `RideStatistics` for how each total is worked out.
public struct FITActivity: RideFileWriter {
    /// Seconds from the Unix epoch to the FIT epoch.
    public static let epochOffset = 631_065_600.0

    let export: RideExport
    private var encoder: FITEncoder
    private var seconds = OncePerSecond()
    private var pendingEvents: ArraySlice<RideSummary.TimerEvent>
    private var lapIndex = 0

    public init(_ export: RideExport) {
        self.export = export
        pendingEvents = export.summary.timerEvents[...]
        encoder = FITEncoder(dataSize: Self.dataSize(export))
        writeStart()
    }

    public mutating func take() -> [UInt8] { encoder.take() }

    public mutating func add(_ point: RidePoint) {
        guard let record = seconds.take(point) else { return }
        while lapIndex < export.summary.laps.count - 1, record.time > export.summary.laps[lapIndex].statistics.end {
            writeEvents(through: export.summary.laps[lapIndex].statistics.end)
            writeLap(lapIndex)
            lapIndex += 1
        }
        writeEvents(through: record.time)
        encoder.data(local: Local.record) { w in
            w.u32(Self.fitTime(record.time))
            w.s32(Self.semicircles(record.latitude))
            w.s32(Self.semicircles(record.longitude))
            w.u16(record.altitude.map { Self.scaled($0 + 500, 5) } ?? 0xFFFF)
            w.u8(Self.byte(record.heartRate))
            w.u8(Self.byte(record.cadence.flatMap { Int(rounding: $0, within: 0...254) }))
            w.u32(Self.scaled32(record.distance, 100))
            w.u16(record.speed.map { Self.scaled($0, 1000) } ?? 0xFFFF)
            w.u16(record.power.map { UInt16(clamping: max(0, min(0xFFFE, $0))) } ?? 0xFFFF)
        }
    }

    public mutating func finish() {
        let export = self.export
        writeEvents(through: Timestamp(secondsSince1970: .infinity))
        while lapIndex < export.summary.laps.count {
            writeLap(lapIndex)
            lapIndex += 1
        }
        let whole = export.summary.statistics
        encoder.data(local: Local.session) { w in
            Self.summary(&w, export, whole, event: 8) // session
            w.u16(export.ftp.map { UInt16(clamping: $0) } ?? 0xFFFF)
            w.u16(0) // first_lap_index
            w.u16(UInt16(clamping: export.summary.laps.count))
            w.u8(0) // trigger: activity_end
            w.u16(0) // message_index
        }
        writeTimeInZone(whole, reference: 18, index: 0)
        encoder.data(local: Local.activity) { w in
            let end = Self.fitTime(whole.end)
            w.u32(end)
            w.u32(Self.scaled32(whole.timerSeconds, 1000))
            w.u16(1)
            w.u8(0) // manual
            w.u8(26) // activity
            w.u8(1) // stop
            w.u32(export.utcOffsetSeconds.map { UInt32(truncatingIfNeeded: Int64(end) + Int64($0)) } ?? 0xFFFF_FFFF)
        }
        encoder.finish()
    }

    /// Local message types: each defined once, at the start.
    enum Local {
        static let fileID: UInt8 = 0, creator: UInt8 = 1, device: UInt8 = 2, event: UInt8 = 3, record: UInt8 = 4
        static let lap: UInt8 = 5, session: UInt8 = 6, zones: UInt8 = 7, activity: UInt8 = 8
    }

    private mutating func writeStart() {
        let export = self.export
        let start = Self.fitTime(export.summary.statistics.start)
        for (local, global, layout) in Self.layouts(export) { encoder.define(local: local, global: global, layout) }
        encoder.data(local: Local.fileID) { w in
            w.u8(4); w.u16(255); w.u16(1); w.u32(export.serialNumber == 0 ? 1 : export.serialNumber); w.u32(start)
        }
        encoder.data(local: Local.creator) { w in
            w.u16(export.softwareVersion.map { UInt16(clamping: Int(($0 * 100).rounded())) } ?? 0xFFFF); w.u8(0xFF)
        }
        // The gateway is device 0, the creator; each sensor after it, as Bluetooth LE.
        encoder.data(local: Local.device) { w in
            Self.device(&w, export, start: start, index: 0, type: 0xFF, serial: export.serialNumber, source: 5, name: export.creator, battery: nil)
        }
        for (offset, sensor) in export.devices.enumerated() {
            encoder.data(local: Local.device) { w in
                Self.device(
                    &w, export, start: start, index: UInt8(clamping: offset + 1), type: sensor.antplusDeviceType, serial: sensor.fitSerialNumber,
                       source: 3, name: sensor.productName, battery: sensor.batteryPercent)
            }
        }
    }

    private static func device(_ w: inout FITEncoder.Fields, _ export: RideExport, start: UInt32, index: UInt8, type: UInt8, serial: UInt32?,
                               source: UInt8, name: String?, battery: Int?) {
        w.u32(start)
        w.u8(index)
        w.u8(type)
        w.u16(255) // development: no FIT manufacturer id for a Bluetooth sensor's maker; its name says it
        w.u32(serial ?? 0)
        w.u16(index == 0 ? 1 : 0xFFFF)
        w.u16(index == 0 ? export.softwareVersion.map { UInt16(clamping: Int(($0 * 100).rounded())) } ?? 0xFFFF : 0xFFFF)
        w.u8(battery.map { $0 > 50 ? 2 : $0 > 20 ? 3 : $0 > 5 ? 4 : 5 } ?? 0xFF) // good, ok, low, critical
        w.u8(source)
        w.text(name, size: Self.nameSize)
        w.u8(battery.map { UInt8(clamping: max(0, min(100, $0))) } ?? 0xFF)
    }

    private mutating func writeEvents(through time: Timestamp) {
        while let event = pendingEvents.first, event.time <= time {
            pendingEvents.removeFirst()
            encoder.data(local: Local.event) { w in
                w.u32(Self.fitTime(event.time))
                w.u8(0) // timer
                w.u8(event.running ? 0 : 4) // start, stop_all
            }
        }
    }

    private mutating func writeLap(_ index: Int) {
        let export = self.export
        let lap = export.summary.laps[index]
        encoder.data(local: Local.lap) { w in
            Self.summary(&w, export, lap.statistics, event: 9) // lap
            w.u8(lap.trigger.fitValue)
            w.u16(UInt16(clamping: index))
        }
        writeTimeInZone(lap.statistics, reference: 19, index: index)
    }

    private mutating func writeTimeInZone(_ s: RideStatistics, reference: UInt16, index: Int) {
        let export = self.export
        guard Self.zoneLayout(export) != nil else { return }
        encoder.data(local: Local.zones) { w in
            w.u32(Self.fitTime(s.end))
            w.u16(reference)
            w.u16(UInt16(clamping: index))
            if let zones = export.context.heartRateZones {
                for seconds in s.heartRateZoneSeconds ?? Array(repeating: 0, count: zones.count + 1) { w.u32(Self.scaled32(seconds, 1000)) }
                // High boundary of each zone (the last is open: 255).
                for bound in zones.lowerBounds.map({ $0 - 1 }) + [255] { w.u8(UInt8(clamping: max(0, bound))) }
            }
            if let zones = export.context.powerZones {
                for seconds in s.powerZoneSeconds ?? Array(repeating: 0, count: zones.count + 1) { w.u32(Self.scaled32(seconds, 1000)) }
                for bound in zones.lowerBounds.map({ $0 - 1 }) + [0xFFFE] { w.u16(UInt16(clamping: max(0, bound))) }
                w.u16(export.ftp.map { UInt16(clamping: $0) } ?? 0xFFFF)
            }
        }
    }

    /// The fields a lap and the session share, in `summaryLayout`'s order.
    private static func summary(_ w: inout FITEncoder.Fields, _ export: RideExport, _ s: RideStatistics, event: UInt8) {
        w.u32(Self.fitTime(s.end))
        w.u32(Self.fitTime(s.start))
        w.s32(Self.semicircles(s.startPosition?.latitude))
        w.s32(Self.semicircles(s.startPosition?.longitude))
        w.u32(Self.scaled32(s.elapsedSeconds, 1000))
        w.u32(Self.scaled32(s.timerSeconds, 1000))
        w.u32(Self.scaled32(s.distanceMeters, 100))
        w.u16(s.calories.map { UInt16(clamping: Int($0.rounded())) } ?? 0xFFFF)
        w.u16(s.averageSpeed.map { Self.scaled($0, 1000) } ?? 0xFFFF)
        w.u16(s.maximumSpeed.map { Self.scaled($0, 1000) } ?? 0xFFFF)
        w.u8(Self.byte(s.averageHeartRate.map { Int($0.rounded()) }))
        w.u8(Self.byte(s.maximumHeartRate))
        w.u8(Self.byte(s.averageCadence.map { Int($0.rounded()) }))
        w.u8(Self.byte(s.maximumCadence))
        w.u16(Self.word(s.averagePower.map { Int($0.rounded()) }))
        w.u16(Self.word(s.maximumPower))
        w.u16(UInt16(clamping: Int(s.ascentMeters.rounded())))
        w.u16(UInt16(clamping: Int(s.descentMeters.rounded())))
        w.u16(Self.word(s.normalizedPower.map { Int($0.rounded()) }))
        w.u32(s.workJoules.map { UInt32(clamping: Int64($0.rounded())) } ?? 0xFFFF_FFFF)
        w.u32(Self.scaled32(s.timerSeconds, 1000)) // total_moving_time
        w.u8(event)
        w.u8(1) // stop
        w.u8(2) // sport: cycling
        w.u8(export.summary.statistics.startPosition == nil && export.summary.statistics.distanceMeters == 0 ? 6 : 0) // indoor_cycling or generic
    }
}
