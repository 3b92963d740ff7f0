/// Everything a ride's file says besides its points: the totals and laps (`RideSummary`, from a first pass over
/// the points), its name, who wrote it, the sensors that rode along, the zones its time in zone is counted in.
public struct RideExport: Sendable {
    public var summary: RideSummary
    public var name: String
    /// The gateway as the file's creator: "ridegate 0.9.2".
    public var creator: String
    /// The creator's version as FIT wants it (major.minor, ×100 in the file).
    public var softwareVersion: Double?
    /// Identifies the ride in FIT's file_id (its id in the ride log).
    public var serialNumber: UInt32
    public var devices: [RideDevice]
    public var context: RideStatistics.Context
    /// The rider's functional threshold power (FIT's threshold_power), when configured.
    public var ftp: Int?
    /// Seconds east of UTC where the ride was ridden (FIT's local_timestamp), when known.
    public var utcOffsetSeconds: Int?

    public init(summary: RideSummary, name: String, creator: String, softwareVersion: Double? = nil, serialNumber: UInt32 = 1,
                devices: [RideDevice] = [], context: RideStatistics.Context = .init(), ftp: Int? = nil, utcOffsetSeconds: Int? = nil) {
        self.summary = summary
        self.name = name
        self.creator = creator
        self.softwareVersion = softwareVersion
        self.serialNumber = serialNumber
        self.devices = devices
        self.context = context
        self.ftp = ftp
        self.utcOffsetSeconds = utcOffsetSeconds
    }
}

/// Writes a ride's file as its points arrive (a second pass over them, in time order), in pieces the caller
/// takes and writes out: no file is ever whole in memory. Points come at any rate; the file gets one record per
/// second, the same ones the summary was built from.
public protocol RideFileWriter {
    mutating func add(_ point: RidePoint)
    mutating func finish()
    /// The bytes written since the last call.
    mutating func take() -> [UInt8]
}
