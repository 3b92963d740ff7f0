import Glibc
import RidegateCore
import RidegateLinux

/// What this state directory announced to Home Assistant, kept across restarts in two small files:
/// `homeassistant-layout` ("device" once the bike's discovery is device-based and an earlier release's
/// per-entity configs were cleared) and `homeassistant-sensors` (the sensors announced, one per line:
/// kind, id, measures, name; tab-separated).
public struct DiscoveryRecord: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    static let deviceLayout = "device"
    var layoutFile: String { directory + "/homeassistant-layout" }
    var sensorsFile: String { directory + "/homeassistant-sensors" }

    /// Whether the device-based layout is recorded (nothing to migrate).
    public var isDeviceLayout: Bool {
        (try? TextFile.read(layoutFile))?.split(separator: "\n").first.map(String.init) == Self.deviceLayout
    }

    /// Whether an earlier install left state here (a spool or a ride log) from before any layout was recorded.
    public var hasEarlierState: Bool {
        ["/spool.sqlite", "/rides.sqlite"].contains { access(directory + $0, F_OK) == 0 }
    }

    public func recordDeviceLayout() throws(FileWriteError) {
        try TextFile.replace(layoutFile, with: Self.deviceLayout + "\n")
    }

    /// The sensors announced by an earlier run; lines that do not parse are skipped (the sensor is announced
    /// again when it connects).
    public func announcedSensors() -> [AnnouncedSensor] {
        guard let text = try? TextFile.read(sensorsFile) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, let kind = SensorProfile.named(fields[0]), !fields[1].isEmpty else { return nil }
            let measures = Set(fields[2].split(separator: ",").compactMap { SensorMeasure(rawValue: String($0)) })
            return AnnouncedSensor(sensor: SensorRef(kind: kind, id: fields[1]), name: fields[3], measures: measures)
        }
    }

    public func remember(_ sensors: [AnnouncedSensor]) throws(FileWriteError) {
        let lines = sensors.map { s in
            // A name comes from the sensor itself: no line breaks or tabs into the file.
            let name = String(s.name.map { $0.isNewline || $0 == "\t" ? " " : $0 })
            return [s.sensor.kind.rawValue, s.sensor.id, s.measures.sorted().map(\.rawValue).joined(separator: ","), name].joined(separator: "\t")
        }
        try TextFile.replace(sensorsFile, with: lines.map { $0 + "\n" }.joined())
    }
}
