extension FITActivity {
    static let nameSize = 32

    /// The fields of a lap (19) and a session (18) in the order `summary` writes them; each adds its own after.
    static let summaryLayout: FITEncoder.Layout = [
        (253, 4, .uint32), (2, 4, .uint32), (3, 4, .sint32), (4, 4, .sint32), (7, 4, .uint32), (8, 4, .uint32), (9, 4, .uint32),
        (11, 2, .uint16), (14, 2, .uint16), (15, 2, .uint16), (16, 1, .uint8), (17, 1, .uint8), (18, 1, .uint8), (19, 1, .uint8),
        (20, 2, .uint16), (21, 2, .uint16), (22, 2, .uint16), (23, 2, .uint16), (34, 2, .uint16), (48, 4, .uint32), (59, 4, .uint32),
        (0, 1, .enumeration), (1, 1, .enumeration), (5, 1, .enumeration), (6, 1, .enumeration),
    ]

    /// A lap's field numbers differ from the session's from avg_speed on (the profile numbers them apart).
    static let lapLayout: FITEncoder.Layout = summaryLayout.map { field in
        let lapNumber: [UInt8: UInt8] = [14: 13, 15: 14, 16: 15, 17: 16, 18: 17, 19: 18, 20: 19, 21: 20, 22: 21, 23: 22, 34: 33, 48: 41, 59: 52,
                                         5: 25, 6: 39]
        return (lapNumber[field.number] ?? field.number, field.size, field.type)
    } + [(24, 1, .enumeration), (254, 2, .uint16)] // lap_trigger, message_index

    static let sessionLayout: FITEncoder.Layout = summaryLayout + [
        (45, 2, .uint16), (25, 2, .uint16), (26, 2, .uint16), (28, 1, .enumeration), (254, 2, .uint16), // threshold_power, laps, trigger, index
    ]

    /// time_in_zone (216): heart-rate zones' times and high boundaries, power's and the FTP, for the zones there are.
    static func zoneLayout(_ export: RideExport) -> FITEncoder.Layout? {
        let hr = export.context.heartRateZones, power = export.context.powerZones
        guard hr != nil || power != nil else { return nil }
        var layout: FITEncoder.Layout = [(253, 4, .uint32), (0, 2, .uint16), (1, 2, .uint16)]
        if let hr { layout += [(2, 4 * (hr.count + 1), .uint32), (6, hr.count + 1, .uint8)] }
        if let power { layout += [(5, 4 * (power.count + 1), .uint32), (9, 2 * (power.count + 1), .uint16), (15, 2, .uint16)] }
        return layout
    }

    /// Every local type's global message and layout.
    static func layouts(_ export: RideExport) -> [(local: UInt8, global: UInt16, layout: FITEncoder.Layout)] {
        var all: [(UInt8, UInt16, FITEncoder.Layout)] = [
            (Local.fileID, 0, [(0, 1, .enumeration), (1, 2, .uint16), (2, 2, .uint16), (3, 4, .uint32z), (4, 4, .uint32)]),
            (Local.creator, 49, [(0, 2, .uint16), (1, 1, .uint8)]),
            (Local.device, 23, [(253, 4, .uint32), (0, 1, .uint8), (1, 1, .uint8), (2, 2, .uint16), (3, 4, .uint32z), (4, 2, .uint16),
                                (5, 2, .uint16), (11, 1, .uint8), (25, 1, .enumeration), (27, nameSize, .string), (32, 1, .uint8)]),
            (Local.event, 21, [(253, 4, .uint32), (0, 1, .enumeration), (1, 1, .enumeration)]),
            (Local.record, 20, [(253, 4, .uint32), (0, 4, .sint32), (1, 4, .sint32), (2, 2, .uint16), (3, 1, .uint8), (4, 1, .uint8),
                                (5, 4, .uint32), (6, 2, .uint16), (7, 2, .uint16)]),
            (Local.lap, 19, lapLayout),
            (Local.session, 18, sessionLayout),
            (Local.activity, 34, [(253, 4, .uint32), (0, 4, .uint32), (1, 2, .uint16), (2, 1, .enumeration), (3, 1, .enumeration),
                                  (4, 1, .enumeration), (5, 4, .uint32)]),
        ]
        if let zones = zoneLayout(export) { all.append((Local.zones, 216, zones)) }
        return all
    }

    /// The bytes of messages the file will hold, for its header: every message's size is fixed by its layout, and
    /// the summary says how many of each there are.
    static func dataSize(_ export: RideExport) -> Int {
        let layouts = Self.layouts(export)
        func size(_ local: UInt8) -> Int { layouts.first { $0.local == local }.map { FITEncoder.messageSize($0.layout) } ?? 0 }
        let summary = export.summary
        var total = layouts.reduce(0) { $0 + FITEncoder.definitionSize($1.layout) }
        total += size(Local.fileID) + size(Local.creator) + size(Local.session) + size(Local.activity)
        total += size(Local.device) * (export.devices.count + 1)
        total += size(Local.event) * summary.timerEvents.count
        total += size(Local.record) * summary.records
        total += size(Local.lap) * summary.laps.count
        total += size(Local.zones) * (summary.laps.count + 1)
        return total
    }

    // MARK: values as FIT stores them

    static func fitTime(_ t: Timestamp) -> UInt32 {
        let seconds = (t.secondsSince1970 - epochOffset).rounded(.down)
        guard seconds.isFinite else { return 0xFFFF_FFFF }
        return UInt32(clamping: Int64(max(0, min(Double(UInt32.max - 1), seconds))))
    }

    /// Degrees as FIT's semicircles: 2³¹ of them to 180°; no position is FIT's invalid 0x7FFFFFFF.
    static func semicircles(_ degrees: Double?) -> Int32 {
        guard let degrees, degrees.isFinite, abs(degrees) <= 180 else { return Int32.max }
        return Int32(clamping: Int64((degrees * 2_147_483_648 / 180).rounded()))
    }

    static func scaled(_ value: Double, _ scale: Double) -> UInt16 {
        Int(rounding: value * scale, within: 0...0xFFFE).map { UInt16($0) } ?? 0xFFFF
    }

    static func scaled32(_ value: Double, _ scale: Double) -> UInt32 {
        Int(rounding: value * scale, within: 0...Int(UInt32.max - 1)).map { UInt32($0) } ?? 0xFFFF_FFFF
    }

    static func byte(_ value: Int?) -> UInt8 { value.map { UInt8(clamping: max(0, min(254, $0))) } ?? 0xFF }
    static func word(_ value: Int?) -> UInt16 { value.map { UInt16(clamping: max(0, min(0xFFFE, $0))) } ?? 0xFFFF }
}
