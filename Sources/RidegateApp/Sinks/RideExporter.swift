import RidegateCore
import RidegateLinux

/// Writes a ride's file from the ride log in two passes over its points — the totals and laps first, then the
/// points streamed into the format's writer — into a file written beside its target and renamed once whole
/// (`AtomicFile`). Memory stays bounded whatever the ride's length: the points are never all in memory, and the
/// writer's bytes go out every 64 KB.
public struct RideExporter: Sendable {
    public let store: SQLiteRideStore
    /// "ridegate 0.1.0".
    public let creator: String

    public init(store: SQLiteRideStore, version: String) {
        self.store = store
        creator = "ridegate \(version)"
    }

    public enum Failure: Error, CustomStringConvertible {
        case read(SQLiteFileError)
        case write(FileWriteError)
        case empty

        public var description: String {
            switch self {
            case .read(let error): "cannot read the ride log: \(error)"
            case .write(let error): "cannot write the file: \(error)"
            case .empty: "the ride has no points"
            }
        }
    }

    /// Writes the ride as `format` at `path` (replacing a file there). `modeRequired: false` for a FAT USB stick.
    public func export(_ ride: SQLiteRideStore.Ride, as format: RideFileFormat, to path: String, modeRequired: Bool = true) throws(Failure) {
        let file: AtomicFile
        do {
            file = try AtomicFile(replacing: path, mode: 0o644, modeRequired: modeRequired)
        } catch {
            throw .write(error)
        }
        try write(ride, as: format) { (bytes) throws(Failure) in
            do throws(FileWriteError) { try file.write(bytes) } catch { throw .write(error) }
        }
        do { try file.commit() } catch { throw .write(error) }
    }

    /// Writes the ride as `format` into `output` a piece at a time (standard output, for `rides export` alone).
    public func write(_ ride: SQLiteRideStore.Ride, as format: RideFileFormat, into output: ([UInt8]) throws(Failure) -> Void) throws(Failure) {
        let made: RideSummary?
        let devices: [RideDevice]
        let context: RideStatistics.Context
        do {
            context = try store.context(ride: ride.id)
            made = try store.summary(ride: ride.id)
            devices = try store.devices(ride: ride.id)
        } catch {
            throw .read(error)
        }
        // The zones hidden in the file too, when the rider asks (training sites have their own zones).
        let hiding = context.hidesPrivacyZonesInFiles ? context.privacyZones : PrivacyZones()
        guard let summary = made.map(hiding.hidingPositions(in:)) else { throw .empty }
        let export = RideExport(summary: summary, name: ride.name, creator: creator, softwareVersion: Self.softwareVersion(creator),
                                serialNumber: UInt32(truncatingIfNeeded: ride.id), devices: devices, context: context,
                                ftp: context.ftp, utcOffsetSeconds: LocalTime.utcOffset(at: summary.statistics.start))
        var writer = format.writer(export)
        var pending: [UInt8] = []
        var outputFailure: Failure?
        do throws(SQLiteFileError) {
            try store.forEachPoint(ride: ride.id) { (point) throws(SQLiteFileError) in
                writer.add(hiding.hidingPosition(of: point))
                pending += writer.take()
                guard pending.count >= 65_536 else { return }
                do throws(Failure) {
                    try output(pending)
                } catch {
                    outputFailure = error
                    throw SQLiteFileError(path: store.path, operation: "export", message: "stopped: the file could not be written")
                }
                pending.removeAll(keepingCapacity: true)
            }
        } catch {
            throw outputFailure ?? .read(error)
        }
        writer.finish()
        try output(pending + writer.take())
    }

    /// "ridegate 1.2.3" → 1.02 (FIT keeps major.minor ×100).
    static func softwareVersion(_ creator: String) -> Double? {
        let parts = creator.split(separator: " ").last?.split(separator: ".").prefix(2).compactMap { Int($0.prefix { $0.isNumber }) } ?? []
        guard parts.count == 2 else { return nil }
        return Double(parts[0]) + Double(min(parts[1], 99)) / 100
    }
}
