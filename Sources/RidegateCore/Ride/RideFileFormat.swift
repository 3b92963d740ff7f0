/// The files a ride can be exported as, and how each is written from the ride log's points.
public enum RideFileFormat: String, Sendable, CaseIterable, Comparable {
    case fit, gpx, tcx

    public var fileExtension: String { rawValue }

    public static func < (lhs: RideFileFormat, rhs: RideFileFormat) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The file's bytes. `serialNumber` identifies the ride in FIT's file_id (its id in the ride log).
    public func write(_ points: [RidePoint], name: String, creator: String, serialNumber: UInt32) -> [UInt8] {
        switch self {
        case .fit: FITActivity.write(points, serialNumber: serialNumber)
        case .tcx: Array(TCXDocument.write(points, creator: creator).utf8)
        case .gpx: Array(GPXDocument.write(points, name: name, creator: creator).utf8)
        }
    }

    /// A file name that sorts by start time and says which ride it is: `2026-06-21-0712-ride-3.fit` (UTC).
    public static func fileName(start: Timestamp, id: Int64, format: RideFileFormat) -> String {
        let iso = start.iso8601 // 2026-06-21T07:12:05.000Z
        let date = iso.prefix(10)
        let time = iso.dropFirst(11).prefix(5).filter { $0 != ":" }
        return "\(date)-\(time)-ride-\(id).\(format.fileExtension)"
    }
}
