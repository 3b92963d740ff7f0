import ArgumentParser

struct RidegateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ridegate",
        abstract: "A sensor gateway for a bike-mounted Raspberry Pi.",
        discussion: """
            ridegate reads BLE heart-rate straps, power meters and speed/cadence sensors and an NMEA GPS, works \
            out heart-rate and power zones, speed, distance, cadence, power and daylight, shows a zone on a GPIO \
            LED, records the ride (GPX, TCX and FIT files), and publishes every reading to MQTT.

            Start with `ridegate demo` to watch a simulated ride flow to a local broker, then `ridegate run`.
            """,
        version: RidegateVersion.current,
        subcommands: [
            RunCommand.self, DemoCommand.self, ScanCommand.self, NMEACommand.self, SunCommand.self, HRCommand.self, CSCCommand.self,
            PowerCommand.self, LEDCommand.self, RidesCommand.self, UploadCommand.self, WatchCommand.self, DoctorCommand.self, VersionCommand.self
        ]
    )
}
