/// The files a ride can be exported as, and the writer of each.
public enum RideFileFormat: String, Sendable, CaseIterable, Comparable {
    case fit, gpx, tcx

    public var fileExtension: String { rawValue }

    public static func < (lhs: RideFileFormat, rhs: RideFileFormat) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A writer for the ride `export` describes; its points follow with `add`.
    public func writer(_ export: RideExport) -> any RideFileWriter {
        switch self {
        case .fit: FITActivity(export)
        case .tcx: TCXDocument(export)
        case .gpx: GPXDocument(export)
        }
    }

    /// The whole file at once, for points already in memory (tests, small rides): both passes over `points`.
    public func write(_ points: [RidePoint], laps: [LapMark] = [], name: String, creator: String, serialNumber: UInt32,
                      context: RideStatistics.Context = .init()) -> [UInt8] {
        guard let summary = RideSummary.of(points, laps: laps, context: context) else { return [] }
        var writer = writer(RideExport(summary: summary, name: name, creator: creator, serialNumber: serialNumber, context: context,
                                       ftp: context.ftp))
        var bytes: [UInt8] = []
        for point in points {
            writer.add(point)
            bytes += writer.take()
        }
        writer.finish()
        return bytes + writer.take()
    }

    /// A file name that sorts by start time and says which ride it is: `2026-06-21-0712-ride-3.fit` (UTC).
    public static func fileName(start: Timestamp, id: Int64, format: RideFileFormat) -> String {
        let iso = start.iso8601 // 2026-06-21T07:12:05.000Z
        let date = iso.prefix(10)
        let time = iso.dropFirst(11).prefix(5).filter { $0 != ":" }
        return "\(date)-\(time)-ride-\(id).\(format.fileExtension)"
    }
}
