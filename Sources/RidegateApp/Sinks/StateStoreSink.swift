import Glibc
import RidegateCore
import RidegateLinux

/// Keeps the last position in the state directory (`last-position`: "lat lon"), replaced crash-safely, and the
/// sensors announced to Home Assistant (`DiscoveryRecord`).
public struct StateStoreSink: EffectSink {
    public let directory: String
    let logger: Logger

    public init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
        if let error = ProcessPaths.privateDirectory(directory, mode: 0o700) {
            logger.warning("cannot create the state directory; the last position will not be kept",
                           [("state.directory", directory), ("state.error", "\(error)")])
        }
    }

    var positionFile: String { directory + "/last-position" }

    public func apply(_ effect: Effect) {
        if case .rememberAnnouncedSensors(let sensors) = effect {
            do {
                try DiscoveryRecord(directory: directory).remember(sensors)
            } catch {
                logger.warning("cannot remember the sensors announced to Home Assistant; they are announced again as they connect",
                               [("state.directory", directory), ("state.error", "\(error)")])
            }
        }
        guard case .rememberPosition(let lat, let lon) = effect else { return }
        do {
            try TextFile.replace(positionFile, with: "\(lat) \(lon)\n")
        } catch {
            logger.warning("cannot remember the last position", [("state.file", positionFile), ("state.error", "\(error)")])
        }
    }

    /// The position remembered by an earlier run, if any.
    public func lastPosition() -> (latitude: Double, longitude: Double)? {
        guard let text = try? TextFile.read(positionFile) else { return nil }
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
              (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        return (lat, lon)
    }

    public func shutdown() async {}
}
