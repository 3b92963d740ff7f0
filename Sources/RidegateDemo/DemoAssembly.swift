import RidegateApp
import RidegateCore
import RidegateLinux

extension GatewayAssembly {
    /// What `ridegate demo` rides: the recording, its pace and where it starts.
    public struct DemoOptions: Sendable {
        public var ridePath: String
        public var speed: Double
        /// When the replayed ride starts: its recorded times are moved there (nil: as recorded).
        public var startAt: Timestamp?
        /// Where the live line goes (stdout), or nil for none.
        public var progress: (@Sendable (String) -> Void)?
        /// Leave what it published retained on the broker at its orderly stop (by default nothing is left).
        public var keepRetained = false

        public init(ridePath: String, speed: Double, startAt: Timestamp? = nil, progress: (@Sendable (String) -> Void)? = nil) {
            self.ridePath = ridePath
            self.speed = speed
            self.startAt = startAt
            self.progress = progress
        }
    }

    /// The demo's own id, never the real gateway's: `<device_id or host name>-demo`.
    public static func demoDeviceID(_ config: GatewayConfig) -> String {
        deviceID(config) + "-demo"
    }

    /// The demo: the real pipeline with a replayed receiver on a pty and simulated sensors on socketpairs. The
    /// ride is an NMEA capture (the bundled one: a strap and a power meter follow its effort) or a head unit's
    /// FIT activity (its positions through the receiver, and a strap, a power meter and a speed/cadence sensor
    /// sending what it recorded, as far as it recorded them).
    /// `loop`: the gateway's one thread, on which the simulation runs too.
    public static func demo(config: GatewayConfig, options: DemoOptions, version: String, loop: EventLoop,
                            logger: Logger) throws(SetupError) -> Gateway {
        let demoLogger = logger.labeled("demo")
        // A recording's second 0, for its receiver and its sensors alike: once the sensors' links are up.
        let start = RideSchedule(loop: loop, logger: demoLogger)
        let ride = try demoRide(options, start: start, loop: loop, logger: demoLogger)
        let pty: PseudoTerminal
        do {
            pty = try PseudoTerminal()
        } catch {
            throw SetupError(description: "cannot create a pseudo-terminal for the simulated GPS: \(error)")
        }
        // The clock is the ride's: from when it starts (a recording dated as recorded starts then), never ahead of
        // what the replay has sent.
        let clock = SystemClock(rate: options.speed, wallStart: options.startAt ?? ride.recordedStart, pace: start)
        demoLogger.info("simulated ride", [
            ("demo.ride", options.ridePath), ("demo.minutes", String(Int(ride.profile.duration / 60))),
            ("demo.speed", String(options.speed)), ("gps.device", pty.devicePath),
        ])
        let store = StateStoreSink(directory: config.stateDirectory, logger: logger.labeled("state"))
        var sources: [any EventSource] = [RememberedPositionSource(store: store, clock: clock),
            StateStorageSource(directory: config.stateDirectory, clock: clock, logger: logger.labeled("state"), loop: loop, interval: nil)
        ]
        // Without a receiver (a trainer's recording) the sensors' own schedule ends the ride.
        let end: RideEnd? = ride.positions ? RideEnd() : nil
        if let end {
            // A replay is dated as recorded or moved to now: no rollover floor for it.
            sources.append(end.ending(with: GPSSource(devicePath: pty.devicePath, baud: .fixed(9600), clock: clock, logger: logger.labeled("gps"),
                                                      loop: loop, stopWhenDeviceCloses: true, rolloverFloor: nil), clock: clock))
        }
        sources += simulatedSensors(ride, options: options, start: start, end: end, clock: clock, loop: loop, logger: logger)
        let config = demoConfig(config, ride: ride, options: options)
        // Before the spool is opened (see `daemon`): a state directory an earlier release rode with is migrated too.
        let discovery = DiscoveryStart(config: config, kinds: Set(SensorProfile.builtIn))
        let readings = openSpool(config, logger: logger)
        let health = HealthFields()
        // Before the MQTTPublisher starts (see `daemon`).
        let sequences = readings.sequences()
        let core = makeCore(config, sequences: sequences, version: version, removeDiscoveryAtStop: true, clockRate: options.speed,
                            powerMeter: ride.powerMeter, discovery: discovery.map { $0.prepare(sequences: sequences, logger: logger) })
        let outputs = try makeSinks(config: config, deviceID: deviceID(config), store: readings, health: health, loop: loop,
                                    clearRetainedAtStop: !options.keepRetained, afterOneShots: discovery?.migrated(logger: logger),
                                    logger: logger)
        // At its end the demo waits a minute for its ride's uploads, to show where the ride went.
        var sinks = rideLog(config, version: version, outputs: outputs, health: health, loop: loop, timeScale: options.speed,
                            waitForUploads: 60, logger: logger)
            + outputs + [store]
        if let progress = options.progress { sinks.append(DemoProgressSink(units: config.displayUnits, write: progress)) }
        let play = ride.play
        return Gateway(sources: sources, sinks: sinks, core: core, clock: clock,
                       logger: logger.labeled("gateway"), stopWhenSourcesEnd: true, companions: [{
                           await play(pty)
                           pty.close()
                       }], loop: loop)
    }

    /// The demo's privacy zone around its start, metres.
    static let demoPrivacyRadius = 300.0

    /// The config the demo rides with, whatever the file says where it must.
    static func demoConfig(_ file: GatewayConfig, ride: DemoRide, options: DemoOptions) -> GatewayConfig {
        var config = file
        if config.led.mode == .off { config.led.mode = .console }
        // The demo rides its simulated GPS (unless its recording had none, as on an indoor trainer) and strap,
        // whatever the file says.
        config.gps.enabled = ride.positions
        config.heartRate.enabled = true
        // Power zones need an FTP: the recording's, else the simulated rider's, unless the config gives one.
        if config.zones.ftp == nil { config.zones.ftp = ride.ftp ?? Int(EffortModel().ftp) }
        // Its readings come `speed` times faster, and so does its backlog's pace.
        config.mqtt.replayPerSecond *= max(1, options.speed)
        // A rider's home is a privacy zone: the demo's ride starts in one of its own, unless the config names some.
        if config.privacyZones.zones.isEmpty, ride.positions, let start = ride.profile.startPosition {
            config.privacyZones = PrivacyZones([.init(name: "demo start", latitude: start.latitude, longitude: start.longitude,
                                                      radiusMeters: demoPrivacyRadius)])
        }
        return config
    }

    /// The simulated sensors that ride along: a strap, a power meter and a speed/cadence sensor, as far as the
    /// ride has them, each on a socketpair of its own and following the ride's profile.
    static func simulatedSensors(_ ride: DemoRide, options: DemoOptions, start: RideSchedule, end: RideEnd?, clock: SystemClock,
                                 loop: EventLoop, logger: Logger) -> [any EventSource] {
        let profile = ride.profile
        var sensors: [any EventSource] = []
        func sensor<S: SimulatedSignal>(_ name: String, _ ref: SensorRef, _ behaviour: SimulatedSensorPeripheral.Behaviour, _ signal: S) {
            if ride.recorded { start.expect(ref.id) }
            sensors.append(SimulatedSensor(name: name, sensor: ref, behaviour: behaviour, profile: profile, speed: options.speed,
                                           start: start, afterFirstFix: !ride.recorded, end: end, clock: clock,
                                           logger: logger.labeled(ref.kind.topicFamily), loop: loop, signal: signal))
        }
        if ride.strap {
            sensor("strap", .strap("demo-strap"), .init(name: "Demo strap", services: [.heartRate], manufacturer: "ridegate", model: "simulated strap",
                                                      serialNumber: "DEMO-STRAP-1"), HeartRateSignal())
        }
        if ride.powerMeter {
            sensor("power", SensorRef(kind: .power, id: "demo-power"), .init(name: "Demo power meter", services: [.power], manufacturer: "ridegate",
                                                                             model: "simulated power meter", serialNumber: "1001"),
                   PowerSignal(sendsWheel: !ride.recorded))
        }
        if ride.speedSensor {
            sensor("speed", SensorRef(kind: .speedCadence, id: "demo-speed"), .init(name: "Demo speed sensor", services: [.speedCadence],
                                                                                    manufacturer: "ridegate", model: "simulated speed sensor",
                                                                                    serialNumber: "1002"), SpeedCadenceSignal())
        }
        return sensors
    }

    /// The demo's ride: what the receiver plays, the profile the sensors follow, which sensors ride along.
    struct DemoRide {
        var profile: RideProfile
        var strap = true
        var powerMeter = true
        var speedSensor = false
        var positions = true
        var ftp: Int?
        var recordedStart: Timestamp?
        var recorded: Bool { recordedStart != nil }
        var play: @Sendable (PseudoTerminal) async -> Void
    }

    static func demoRide(_ options: DemoOptions, start: RideSchedule, loop: EventLoop, logger: Logger) throws(SetupError) -> DemoRide {
        if RecordedRide.isFIT(options.ridePath) {
            let recorded: RecordedRide
            do {
                recorded = try RecordedRide(path: options.ridePath)
            } catch {
                throw SetupError(description: error.description)
            }
            for note in recorded.notes { logger.notice("the recorded ride: \(note)", [("demo.ride", options.ridePath)]) }
            let replayer = RecordedRideReplayer(ride: recorded, speed: options.speed, startAt: options.startAt, start: start, logger: logger,
                                                loop: loop)
            return DemoRide(profile: recorded.profile, strap: recorded.hasHeartRate, powerMeter: recorded.hasPower,
                speedSensor: recorded.hasSpeedSensor, positions: recorded.hasPositions, ftp: recorded.ftp,
                recordedStart: recorded.start,
                            play: { await replayer.play(into: $0) })
        }
        var builder = RideProfile.Builder()
        do {
            try TextFile.readChunks(options.ridePath) { chunk in
                builder.add(chunk)
                return true
            }
        } catch {
            throw SetupError(description: "cannot read the demo ride: \(error). Pass one with --ride PATH")
        }
        let replayer = NMEAReplayer(path: options.ridePath, speed: options.speed, startAt: options.startAt, logger: logger, loop: loop,
                                    start: start)
        return DemoRide(profile: builder.finish(), play: { await replayer.play(into: $0) })
    }
}
