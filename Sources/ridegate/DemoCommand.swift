import ArgumentParser
import Glibc
import RidegateApp
import RidegateCore
import RidegateDemo
import RidegateLinux

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the real gateway on a simulated ride.",
        discussion: """
            A recorded ride (NMEA at 1 Hz) is played into a pseudo-terminal that the real serial reader opens \
            like a USB GPS, and a simulated heart-rate strap and power meter send real Bluetooth measurements \
            (heart rate; power with crank revolutions for cadence) that follow the effort of the ride. Everything \
            after that is the daemon's own code, publishing to the broker and recording the ride. \
            With no GPIO LED configured, the LED is shown as log lines. It publishes as its own device \
            (`<host name>-demo` unless --device-id says otherwise) and, when it stops, removes its Home Assistant \
            entities and everything else it left retained on the broker (states, ride summary, position, status).
            """)

    @Option(help: ArgumentHelp("The MQTT broker, as host:port or host (default: localhost:1883).", valueName: "host:port"),
            transform: brokerArgument)
    var broker: BrokerAddress = BrokerAddress(host: "localhost", port: 1883)

    @Option(help: ArgumentHelp("Play the ride this many times faster than real time (0.1 to 1000).", valueName: "factor"))
    var speed: Double = 1

    @Option(help: ArgumentHelp("The ride: an NMEA capture, or a FIT activity a head unit recorded (its positions, heart rate, power, cadence and speed replayed as it recorded them). Defaults to the bundled demo ride.", valueName: "path"))
    var ride: String?

    @Option(help: ArgumentHelp(
        "When the replayed ride starts: 'now' (the default: the recording's times are moved to today, so sun times, ride names and file dates are today's), 'recorded' (its own times), or a UTC time such as 2026-06-21T16:00:00Z.",
        valueName: "when"), transform: DemoStart.init(argument:))
    var start: DemoStart = .now

    @Option(help: ArgumentHelp(
        "The device id in MQTT topics (default: the config's device_id, else the host name, followed by '-demo').",
        valueName: "id"))
    var deviceID: String?

    @Option(help: ArgumentHelp("An optional configuration file for zones, LED and MQTT settings.", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp(
        "Keep the spool, sequence numbers and last position here (default: a new temporary directory, so each demo starts fresh).",
        valueName: "path"))
    var stateDirectory: String?

    @Flag(help: "At the stop, leave the final ride summary, rides/last, states and status retained on the broker, as the daemon does.")
    var keepRetained = false

    @OptionGroup var logging: LogLevelOption

    func validate() throws {
        guard (0.1...1000).contains(speed) else {
            throw ValidationError("The value '\(speed)' is invalid for '--speed'. Use a factor from 0.1 to 1000.")
        }
        if let id = deviceID, !DeviceID.isValid(id) {
            throw ValidationError("The value '\(id)' is invalid for '--device-id'. Use letters, digits, '-' and '_'.")
        }
    }

    func run() async throws {
        var settings = GatewayConfig()
        if let path = config { settings = try ConfigFileOption.load(path: path) }
        if let stateDirectory {
            settings.stateDirectory = stateDirectory
        } else if config == nil {
            // Never the daemon's state: a demo must not replay into a real gateway's spool.
            do {
                settings.stateDirectory = try ProcessPaths.temporaryDirectory(prefix: "/tmp/ridegate-demo-")
            } catch {
                writeError("cannot create a temporary state directory: \(error)")
                throw ExitCode(ExitStatus.unavailable)
            }
        }
        settings.mqtt.host = broker.host
        settings.mqtt.port = broker.port
        // Its own namespace: a demo must never speak as (or over) the real gateway on the same broker.
        settings.deviceID = deviceID ?? GatewayAssembly.demoDeviceID(settings)
        let logger = logging.logger(configured: settings.logLevel)
        guard let ridePath = ride ?? DemoRideLocator.bundledRide() else {
            writeError("the bundled demo ride was not found; pass one with --ride PATH")
            throw ExitCode(ExitStatus.unavailable)
        }
        let loop = try processLoop()
        let signals = TerminationSignals(on: loop, logger: logger)
        let gateway: Gateway
        do {
            var options = GatewayAssembly.DemoOptions(ridePath: ridePath, speed: speed, startAt: start.time, progress: { line in
                try? FileDescriptor(rawValue: 1).writeAll(Array((line + "\n").utf8))
            })
            options.keepRetained = keepRetained
            gateway = try GatewayAssembly.demo(config: settings, options: options, version: RidegateVersion.current, loop: loop, logger: logger)
        } catch {
            logger.critical("cannot start the demo", [("error", error.description)])
            throw ExitCode(ExitStatus.unavailable)
        }
        logger.info("demo started", [("mqtt.broker", broker.description), ("device_id", GatewayAssembly.deviceID(settings))])
        _ = await gateway.run(signals: signals.signals)
        Self.printSummary(stateDirectory: settings.stateDirectory, units: settings.displayUnits)
    }
}

/// `--start`: when the replayed ride begins.
enum DemoStart {
    case now
    case recorded
    case at(Timestamp)

    init(argument: String) throws {
        switch argument {
        case "now": self = .now
        case "recorded": self = .recorded
        default:
            guard let time = Timestamp(iso8601: argument) else {
                throw ValidationError("The value '\(argument)' is invalid for '--start'. Use 'now', 'recorded' or a UTC time such as 2026-06-21T16:00:00Z.")
            }
            self = .at(time)
        }
    }

    /// The moment the ride's first dated epoch is moved to (nil: as recorded).
    var time: Timestamp? {
        switch self {
        case .now: SystemClock.wallClock()
        case .recorded: nil
        case .at(let time): time
        }
    }
}

/// Where the bundled ride lives: beside an installed binary, or in the source tree of a development build.
enum DemoRideLocator {
    static func bundledRide() -> String? {
        var candidates: [String] = []
        if let env = getenv("RIDEGATE_DEMO_RIDE") { candidates.append(String(cString: env)) }
        if let dir = ProcessPaths.executableDirectory() { candidates.append(dir + "/../share/ridegate/demo-ride.nmea") }
        let sourceFile = #filePath
        let repo = sourceFile.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        candidates.append(repo + "/demo/ride.nmea")
        return candidates.first { TextFile.unreadable($0) == nil }
    }
}

extension DemoCommand {
    /// The ride the demo recorded, in a line a person reads, and how to get its file.
    static func printSummary(stateDirectory: String, units: DisplayUnits) {
        guard let store = try? SQLiteRideStore(path: GatewayAssembly.rideLogPath(stateDirectory)),
              let ride = try? store.rides().last else { return }
        let s = ride.statistics
        let distance = s?.distanceMeters ?? ride.distanceMeters, moving = s?.timerSeconds ?? ride.movingSeconds
        var parts = ["\(units.distance(metres: distance)) in \(DisplayUnits.duration(seconds: moving)) moving "
            + "(\(units.speed(metresPerSecond: moving > 0 ? distance / moving : 0)))"]
        if let average = s?.averageHeartRate, let maximum = s?.maximumHeartRate {
            parts.append("heart rate \(Int(rounding: average, within: 0...Int.max) ?? 0) avg, \(maximum) max")
        }
        if let power = s?.averagePower, let normalized = s?.normalizedPower {
            parts.append("power \(Int(rounding: power, within: 0...Int.max) ?? 0) W avg, \(Int(rounding: normalized, within: 0...Int.max) ?? 0) W normalized")
        }
        if let s {
            parts.append("+\(units.height(metres: s.ascentMeters)) / −\(units.height(metres: s.descentMeters))")
        }
        print("ride: \(ride.name): " + parts.joined(separator: ", "))
        print("ride file: ridegate rides export latest --format fit --state-directory \(stateDirectory) -o ride.fit")
        for job in (try? store.uploads(ride: ride.id)) ?? [] { // unreadable: the upload's own log lines said it
            let what = job.state == .done ? job.activityURL ?? "" : job.detail ?? ""
            print("upload: \(job.service.displayName) \(job.state.rawValue)\(what.isEmpty ? "" : " (\(what))")")
        }
    }

}
