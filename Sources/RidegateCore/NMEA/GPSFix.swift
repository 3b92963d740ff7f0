/// One epoch's position report, assembled from every sentence the receiver sent for that instant.
public struct GPSFix: Sendable, Equatable {
    public enum Mode: Int, Sendable, Comparable {
        case noFix = 1
        case twoD = 2
        case threeD = 3

        public static func < (lhs: Mode, rhs: Mode) -> Bool { lhs.rawValue < rhs.rawValue }

        public var name: String {
            switch self {
            case .noFix: "no_fix"
            case .twoD: "2d"
            case .threeD: "3d"
            }
        }
    }

    /// UTC, when both a time and a date are known.
    public var time: Timestamp?
    public var mode: Mode
    public var latitude: Double?
    public var longitude: Double?
    public var altitudeMSL: Double?
    public var speedMetersPerSecond: Double?
    public var trackDegrees: Double?
    public var satellitesUsed: Int?
    /// Satellites in view, summed over the constellations' GSV groups of the epoch.
    public var satellitesInView: Int?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// GGA's quality indicator (1 GPS, 2 DGPS, 4 RTK fixed…), when a GGA was seen.
    public var quality: Int?

    public init(time: Timestamp? = nil, mode: Mode = .noFix, latitude: Double? = nil, longitude: Double? = nil,
                altitudeMSL: Double? = nil, speedMetersPerSecond: Double? = nil, trackDegrees: Double? = nil,
                satellitesUsed: Int? = nil, hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil,
                quality: Int? = nil) {
        self.time = time
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMSL = altitudeMSL
        self.speedMetersPerSecond = speedMetersPerSecond
        self.trackDegrees = trackDegrees
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.quality = quality
    }

    /// A position a rider can trust: a 2D or 3D fix with coordinates.
    public var hasPosition: Bool { mode >= .twoD && latitude != nil && longitude != nil }
}
