import Foundation
import RidegateApp
import RidegateCore
import Testing

/// What a state directory keeps of Home Assistant discovery, in real files: the layout once recorded, the
/// sensors announced (a name from the sensor itself cannot break the file), and whether an earlier install left
/// state behind.
@Suite struct DiscoveryRecordTests {
    func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-discovery-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("The sensors announced come back as they were; a name with tabs and line breaks stays one line")
    func sensorsRoundTrip() throws {
        let record = DiscoveryRecord(directory: try directory())
        #expect(record.announcedSensors().isEmpty)
        let sensors = [
            AnnouncedSensor(sensor: .strap("f1f2f3f4f5f6"), name: "Polar\tH10\nevil\r\nline", measures: [.heartRate]),
            AnnouncedSensor(sensor: SensorRef(kind: .power, id: "d1d2d3d4d5d6"), name: "4iiii", measures: [.power, .cadence]),
        ]
        try record.remember(sensors)
        let back = record.announcedSensors()
        #expect(back.map(\.sensor) == sensors.map(\.sensor))
        #expect(back.map(\.name) == ["Polar H10 evil line", "4iiii"])
        #expect(back.map(\.measures) == sensors.map(\.measures))
    }

    @Test("Lines that do not parse are skipped: an unknown kind, a missing field")
    func damagedLines() throws {
        let dir = try directory()
        try "heart_rate\ts1\theart_rate\tStrap\nrocket\tx\t\tX\npower\tp1\n\n".write(toFile: dir + "/homeassistant-sensors", atomically: true, encoding: .utf8)
        #expect(DiscoveryRecord(directory: dir).announcedSensors().map(\.sensor.id) == ["s1"])
    }

    @Test("The layout is recorded once; an earlier install is a spool or a ride log in the directory")
    func layoutAndEarlierState() throws {
        let dir = try directory()
        let record = DiscoveryRecord(directory: dir)
        #expect(!record.isDeviceLayout && !record.hasEarlierState)
        #expect(FileManager.default.createFile(atPath: dir + "/rides.sqlite", contents: Data()))
        #expect(record.hasEarlierState)
        try record.recordDeviceLayout()
        #expect(record.isDeviceLayout)
    }
}
