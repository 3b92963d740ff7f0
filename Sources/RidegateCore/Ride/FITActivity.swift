/// A ride as a FIT activity file (Garmin's Flexible and Interoperable Data Transfer protocol), the format
/// Garmin Connect, Strava and TrainingPeaks prefer: binary, about thirty times smaller than TCX.
///
/// Messages, in the order the FIT SDK's activity files use: file_id, device_info, one record per point
/// (position in semicircles, altitude, speed, distance, heart rate, cadence, power), one lap per 5 km (as
/// the TCX), session, activity. Times are seconds since the FIT epoch (1989-12-31T00:00:00Z). Header and
/// file carry FIT's CRC-16. Field numbers, base types, scales and offsets are from the FIT profile.
public enum FITActivity {
    /// Seconds from the Unix epoch to the FIT epoch.
    public static let epochOffset = 631_065_600.0

    public static func write(_ points: [RidePoint], serialNumber: UInt32 = 1) -> [UInt8] {
        var body = FITWriter()
        guard let first = points.first, let last = points.last else { return FITWriter.file(body.bytes) }
        let start = fitTime(first.time), end = fitTime(last.time)

        // file_id (0): type activity, manufacturer development (255), product, serial, time_created.
        body.define(local: 0, global: 0, [(0, 1, .enumeration), (1, 2, .uint16), (2, 2, .uint16), (3, 4, .uint32z), (4, 4, .uint32)])
        body.data(local: 0) { $0.u8(4); $0.u16(255); $0.u16(1); $0.u32(serialNumber); $0.u32(start) }
        // device_info (23): timestamp, manufacturer, product, software version (×100).
        body.define(local: 1, global: 23, [(253, 4, .uint32), (2, 2, .uint16), (4, 2, .uint16), (5, 2, .uint16)])
        body.data(local: 1) { $0.u32(start); $0.u16(255); $0.u16(1); $0.u16(10) }
        // record (20): timestamp, lat, long, altitude (×5, +500 m), heart rate, cadence, distance (×100), speed (×1000), power.
        body.define(local: 2, global: 20, [(253, 4, .uint32), (0, 4, .sint32), (1, 4, .sint32), (2, 2, .uint16), (3, 1, .uint8),
                                           (4, 1, .uint8), (5, 4, .uint32), (6, 2, .uint16), (7, 2, .uint16)])
        for point in points {
            body.data(local: 2) { w in
                w.u32(fitTime(point.time))
                w.s32(semicircles(point.latitude ?? .nan))
                w.s32(semicircles(point.longitude ?? .nan))
                w.u16(point.altitude.map { scaled($0 + 500, 5, max: 0xFFFE) } ?? 0xFFFF)
                w.u8(point.heartRate.map { UInt8(clamping: max(0, min(254, $0))) } ?? 0xFF)
                w.u8(point.cadence.map { UInt8(clamping: max(0, min(254, Int($0.rounded())))) } ?? 0xFF)
                w.u32(UInt32(clamping: Int64((point.distance * 100).rounded())))
                w.u16(point.speed.map { scaled($0, 1000, max: 0xFFFE) } ?? 0xFFFF)
                w.u16(point.power.map { UInt16(clamping: max(0, min(0xFFFE, $0))) } ?? 0xFFFF)
            }
        }
        // lap (19) and session (18): timestamp, start, elapsed and timer time (×1000), distance (×100), heart rate.
        let summaryFields: [(UInt8, UInt8, FITWriter.BaseType)] = [(253, 4, .uint32), (2, 4, .uint32), (7, 4, .uint32), (8, 4, .uint32),
                                                                   (9, 4, .uint32), (0, 1, .enumeration), (1, 1, .enumeration),
                                                                   (15, 1, .uint8), (16, 1, .uint8)]
        body.define(local: 3, global: 19, summaryFields)
        let laps = TCXDocument.laps(points)
        for lap in laps {
            guard let a = lap.first, let b = lap.last else { continue }
            body.data(local: 3) { w in summary(&w, a, b, lap, event: 9) } // event lap, stop
        }
        // session: the lap fields (avg/max heart rate are 16/17 here), sport cycling, laps.
        body.define(local: 4, global: 18, [(253, 4, .uint32), (2, 4, .uint32), (7, 4, .uint32), (8, 4, .uint32), (9, 4, .uint32),
                                           (0, 1, .enumeration), (1, 1, .enumeration), (16, 1, .uint8), (17, 1, .uint8),
                                           (5, 1, .enumeration), (6, 1, .enumeration), (25, 2, .uint16), (26, 2, .uint16)])
        body.data(local: 4) { w in
            summary(&w, first, last, points, event: 8) // event session, stop
            w.u8(2) // sport: cycling
            w.u8(0) // sub_sport: generic
            w.u16(0)
            w.u16(UInt16(clamping: laps.count))
        }
        // activity (34): timestamp, total timer time (×1000), sessions, type manual, event activity, stop.
        body.define(local: 5, global: 34, [(253, 4, .uint32), (0, 4, .uint32), (1, 2, .uint16), (2, 1, .enumeration),
                                           (3, 1, .enumeration), (4, 1, .enumeration)])
        body.data(local: 5) { w in
            w.u32(end); w.u32(UInt32(clamping: Int64(((last.time - first.time) * 1000).rounded()))); w.u16(1); w.u8(0); w.u8(26); w.u8(1)
        }
        return FITWriter.file(body.bytes)
    }

    /// timestamp, start, elapsed, timer, distance, event, event type stop, average and maximum heart rate.
    private static func summary(_ w: inout FITWriter.Fields, _ a: RidePoint, _ b: RidePoint, _ span: [RidePoint], event: UInt8) {
        let heartRates = span.compactMap(\.heartRate).filter { $0 > 0 }
        let seconds = UInt32(clamping: Int64(((b.time - a.time) * 1000).rounded()))
        w.u32(fitTime(b.time))
        w.u32(fitTime(a.time))
        w.u32(seconds)
        w.u32(seconds)
        w.u32(UInt32(clamping: Int64(((b.distance - a.distance) * 100).rounded())))
        w.u8(event)
        w.u8(1)
        w.u8(heartRates.isEmpty ? 0xFF : UInt8(clamping: heartRates.reduce(0, +) / heartRates.count))
        w.u8(heartRates.max().map { UInt8(clamping: $0) } ?? 0xFF)
    }

    static func fitTime(_ t: Timestamp) -> UInt32 {
        UInt32(clamping: Int64((t.secondsSince1970 - epochOffset).rounded(.down)))
    }

    /// Degrees as FIT's semicircles: 2³¹ of them to 180°.
    static func semicircles(_ degrees: Double) -> Int32 {
        guard degrees.isFinite else { return Int32.max }
        return Int32(clamping: Int64((degrees * 2_147_483_648 / 180).rounded()))
    }

    static func scaled(_ value: Double, _ scale: Double, max: UInt16) -> UInt16 {
        guard value.isFinite else { return 0xFFFF }
        return UInt16(clamping: Swift.max(0, Swift.min(Int64(max), Int64((value * scale).rounded()))))
    }
}

/// FIT's framing: definition and data messages, the 14-byte header and the CRC-16.
struct FITWriter {
    enum BaseType: UInt8 {
        case enumeration = 0x00, uint8 = 0x02, uint16 = 0x84, sint32 = 0x85, uint32 = 0x86, uint32z = 0x8C
    }

    /// A data message's field values, little-endian, in the order of its definition.
    struct Fields {
        var bytes: [UInt8] = []
        mutating func u8(_ v: UInt8) { bytes.append(v) }
        mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        mutating func u32(_ v: UInt32) { bytes += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
        mutating func s32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    }

    private(set) var bytes: [UInt8] = []

    mutating func define(local: UInt8, global: UInt16, _ fields: [(number: UInt8, size: UInt8, type: BaseType)]) {
        bytes += [0x40 | local, 0, 0, UInt8(global & 0xFF), UInt8(global >> 8), UInt8(fields.count)]
        for field in fields { bytes += [field.number, field.size, field.type.rawValue] }
    }

    mutating func data(local: UInt8, _ fill: (inout Fields) -> Void) {
        var fields = Fields()
        fill(&fields)
        bytes.append(local)
        bytes += fields.bytes
    }

    /// Header (protocol 2.0, profile 21.40), the records, and the file CRC.
    static func file(_ records: [UInt8]) -> [UInt8] {
        let size = UInt32(records.count)
        var header: [UInt8] = [14, 0x20, UInt8(2140 & 0xFF), UInt8(2140 >> 8),
                               UInt8(size & 0xFF), UInt8((size >> 8) & 0xFF), UInt8((size >> 16) & 0xFF), UInt8(size >> 24)]
        header += Array(".FIT".utf8)
        let headerCRC = crc(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        let all = header + records
        let fileCRC = crc(all)
        return all + [UInt8(fileCRC & 0xFF), UInt8(fileCRC >> 8)]
    }

    /// FIT's CRC-16 (the SDK's nibble table).
    static func crc(_ bytes: [UInt8]) -> UInt16 {
        let table: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                               0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
        var crc: UInt16 = 0
        for byte in bytes {
            var tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int(byte & 0xF)]
            tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int((byte >> 4) & 0xF)]
        }
        return crc
    }
}
