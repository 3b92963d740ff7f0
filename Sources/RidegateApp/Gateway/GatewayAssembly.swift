import Glibc
import RidegateCore
import RidegateLinux

/// The one place that builds sources and sinks from a configuration and hands them to the `Gateway`.
public enum GatewayAssembly {
    public struct SetupError: Error, CustomStringConvertible {
        public var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// The daemon: the configured GPS and BLE sensors, the configured LED, and MQTT.
    /// `lastGoodInForce`: the configuration file was refused and `config` is the last good copy (`run --last-good`).
    /// `loop`: the gateway's one thread, on which every part reads, waits and runs (the process's main thread).
    public static func daemon(config: GatewayConfig, version: String, lastGoodInForce: Bool = false, loop: EventLoop,
                              logger: Logger) throws(SetupError) -> Gateway {
        let clock = SystemClock()
        var sources: [any EventSource] = []
        if config.gps.enabled, let gpsd = config.gps.gpsd {
            sources.append(GPSDSource(address: gpsd, clock: clock, logger: logger.labeled("gps"), loop: loop))
        } else if config.gps.enabled {
            let baud: GPSSource.Baud
            switch config.gps.baud {
            case .fixed(let rate): baud = .fixed(rate)
            case .auto: baud = .auto
            }
            sources.append(GPSSource(devicePath: config.gps.device, baud: baud, clock: clock, logger: logger.labeled("gps"), loop: loop))
        }
        let link = KernelSensorLink(loop: loop)
        let claims = SensorClaims(configuredKinds: Set(config.bluetoothSensors.map(\.kind)))
        for sensor in config.bluetoothSensors {
            sources.append(BluetoothSensorSource(
                kind: sensor.kind, selector: SensorSelector(configured: sensor.select), wheelMillimetres: sensor.wheelMillimetres,
                link: link, claims: claims, clock: clock, logger: logger.labeled(sensor.kind.topicFamily),
                memory: SensorMemory(directory: config.stateDirectory, kind: sensor.kind), retry: .standard(on: loop)))
        }
        let store = StateStoreSink(directory: config.stateDirectory, logger: logger.labeled("state"))
        sources.append(RememberedPositionSource(store: store, clock: clock))
        // Looked at before the spool is opened (which makes its file).
        let discovery = DiscoveryStart(config: config)
        let readings = openSpool(config, logger: logger)
        sources.append(StateStorageSource(directory: config.stateDirectory, clock: clock, logger: logger.labeled("state"), loop: loop))
        let notifier = ServiceNotifier()
        if let interval = notifier.watchdogInterval { sources.append(WatchdogSource(interval: interval, clock: clock, loop: loop)) }
        if let button = config.button { sources.append(LapButtonSource(button: button, clock: clock, logger: logger.labeled("button"), loop: loop)) }
        // systemd hears "stopping" first and the rest of the orderly stop after it.
        let health = HealthFields()
        // Read before the MQTTPublisher starts: from then on the spool is the publisher's, on the loop's thread only
        // (SQLite's connection is not shared between threads; reading it here during the first connect crashed).
        let sequences = readings.sequences()
        let core = makeCore(config, sequences: sequences, version: version, lastGoodInForce: lastGoodInForce,
                            discovery: discovery.map { $0.prepare(sequences: sequences, logger: logger) })
        let outputs = try makeSinks(config: config, deviceID: deviceID(config), store: readings, health: health, loop: loop,
                                    afterOneShots: discovery?.migrated(logger: logger), logger: logger)
        // The ride log stops before MQTT: its last word (`rides/last`) goes out through the connection.
        let sinks = [ServiceManagerSink(notifier: notifier)]
            + rideLog(config, version: version, outputs: outputs, health: health, loop: loop, logger: logger) + outputs + [store]
        return Gateway(sources: sources, sinks: sinks, core: core, clock: clock,
                       logger: logger.labeled("gateway"), loop: loop)
    }

    /// Requests the configured LED lines (one, three, or one per zone), in order.
    public static func requestLEDLines(_ config: GatewayConfig, consumer: String = "ridegate") throws(GPIOError) -> [GPIOOutputLine] {
        try config.led.selectors.map { s throws(GPIOError) -> GPIOOutputLine in
            let selector: GPIOOutputLine.Selector = s.name.map { .name($0) } ?? .offset(chip: s.chip ?? config.led.chip, offset: s.offset ?? 0)
            return try GPIOOutputLine(selector, activeLow: config.led.activeLow, consumer: consumer)
        }
    }

    public static func ledLayout(_ config: GatewayConfig) -> LEDLayout {
        switch config.led.mode {
        case .rgb: .rgb
        case .bar: .bar(lines: max(config.led.lines.count, config.led.lineNames.count))
        case .single, .off, .console: .single
        }
    }

    public static func deviceID(_ config: GatewayConfig) -> String {
        if let id = config.deviceID { return id }
        guard let host = ProcessPaths.hostName() else { return "ridegate" }
        return DeviceID.from(hostname: host)
    }

    /// The ride log in the state directory (`rides.sqlite`), announcing finished rides through `MQTTSink`
    /// among `outputs`. Opened (checked, salvaged, retried) by the sink on its own worker. With training sites
    /// configured, the uploader that works its upload queue comes with it.
    package static func rideLog(_ config: GatewayConfig, version: String, outputs: [any EffectSink], health: HealthFields, loop: EventLoop,
                        timeScale: Double = 1, waitForUploads: Double = 0, logger: Logger) -> [any EffectSink] {
        let file = RideLogFile(path: rideLogPath(config.stateDirectory), newRideAfter: config.ride.newRideAfterMinutes * 60,
                               context: rideContext(config), uploadServices: config.upload.services)
        var policy = RideLogSink.Policy(
            exportDirectory: config.ride.exportDirectory, exportFormats: config.ride.exportFormats,
            maximumBytes: Int64(config.ride.maximumMegabytes * 1_048_576), maximumAgeDays: config.ride.keepDays)
        let mqtt = outputs.compactMap { $0 as? MQTTSink }.first
        let announce: @Sendable (Publication) -> Void = { mqtt?.apply(.publish($0)) }
        var settings = uploadSettings(config, version: version, timeScale: timeScale)
        settings.waitAtStop = waitForUploads
        let uploader = config.upload.services.isEmpty ? nil : makeUploader(settings, loop: loop, announce: announce, logger: logger.labeled("upload"))
        policy.uploadServices = config.upload.services
        let rides = RideLogSink(file: file, version: version, policy: policy, announce: announce, uploadsQueued: { uploader?.queued() },
                                health: health, logger: logger.labeled("rides"))
        return [rides] + (uploader.map { [$0] } ?? [])
    }

    static func makeUploader(_ settings: RideUploader.Settings, loop: EventLoop, announce: @escaping @Sendable (Publication) -> Void,
                             logger: Logger) -> RideUploader? {
        do {
            return RideUploader(settings: settings, library: try CurlLibrary(), loop: loop, announce: announce, logger: logger)
        } catch {
            // The rides are still recorded and queued: they go once libcurl is there and ridegate restarted.
            logger.error("finished rides are queued but not uploaded", [("error", error.description)])
            return nil
        }
    }

    static func uploadSettings(_ config: GatewayConfig, version: String, timeScale: Double = 1) -> RideUploader.Settings {
        RideUploader.Settings(rideLogPath: rideLogPath(config.stateDirectory), workDirectory: config.stateDirectory,
                              exportDirectory: config.ride.exportDirectory, deviceID: deviceID(config), version: version,
                              intervalsICU: config.upload.intervalsICU, strava: config.upload.strava, timeScale: timeScale,
                              context: rideContext(config))
    }

    public static func rideLogPath(_ stateDirectory: String) -> String { stateDirectory + "/rides.sqlite" }

    /// The zones a ride's time in zone is counted in, the rider its calories are for and the places its name does
    /// not give, from the config.
    public static func rideContext(_ config: GatewayConfig) -> RideStatistics.Context {
        var context = RideStatistics.Context(heartRateZones: config.heartRate.enabled ? config.zones.zones : nil,
                                             powerZones: config.zones.powerZones, rider: config.rider, ftp: config.zones.ftp)
        context.privacyZones = config.privacyZones
        context.hidesPrivacyZonesInFiles = config.ride.hidePrivacyZonesInFiles
        return context
    }

    /// The spool in the state directory: damaged files salvaged, a full or unwritable disk bridged in memory
    /// (`ResilientSpool` says so in the log and on `health`).
    package static func openSpool(_ config: GatewayConfig, logger: Logger) -> any ReadingStore {
        // Only ridegate reads its state (the GPS track in the spool): 0700, also for a directory made earlier.
        ProcessPaths.privateDirectory(config.stateDirectory, mode: 0o700)
        return ResilientSpool(path: config.stateDirectory + "/spool.sqlite",
                              maximumBytes: Int64(config.mqtt.spoolMaxMegabytes) * 1024 * 1024, logger: logger.labeled("spool"))
    }

    /// `clockRate`: how many times faster than real time the clock runs (the demo's `--speed`); a fix read a
    /// moment late is then that many more seconds late, so the time reference's tolerance grows with it.
    /// `powerMeter`: whether a power meter rides along, where the config does not say (the demo's simulated one).
    package static func makeCore(_ config: GatewayConfig, sequences: [String: Int] = [:], version: String = "",
                         removeDiscoveryAtStop: Bool = false, clockRate: Double = 1, powerMeter: Bool? = nil,
                         lastGoodInForce: Bool = false, discovery prepared: DiscoveryStart.Prepared? = nil) -> GatewayCore {
        var settings = makeSettings(config)
        settings.runsLastGoodConfig = lastGoodInForce
        settings.gpsTimeTolerance *= max(1, clockRate)
        if config.mqtt.homeAssistantDiscovery {
            let id = deviceID(config)
            var discovery = HomeAssistantDiscovery(
                discoveryPrefix: config.mqtt.homeAssistantPrefix, baseTopic: "\(config.mqtt.prefix)/\(id)", deviceID: id, version: version,
                features: .init(heartRate: config.heartRate.enabled, gps: config.gps.enabled, sun: config.sun.enabled,
                                power: powerMeter ?? config.bluetoothSensors.contains { $0.kind.zones == .power },
                                laps: config.button != nil || config.ride.autoLapKilometers != nil,
                                uploads: !config.upload.services.isEmpty))
            discovery.heartRateInterval = settings.heartRateMinimumInterval
            discovery.heartRateZones = config.zones.zones.count
            discovery.gpsInterval = settings.gpsMinimumInterval
            discovery.removeAtStop = removeDiscoveryAtStop
            if let prepared {
                discovery.rememberedSensors = prepared.remembered
                discovery.forgottenSensors = prepared.forgotten
                discovery.legacySensors = prepared.legacySensors
            }
            settings.homeAssistant = discovery
        }
        var core = GatewayCore(settings: settings)
        core.restoreSequences(sequences)
        return core
    }

    static func makeSettings(_ config: GatewayConfig) -> GatewayCore.Settings {
        var settings = GatewayCore.Settings(
            zones: config.zones.zones, zoneMarginBPM: config.zones.marginBPM, zoneDwellSeconds: config.zones.dwellSeconds,
            autoPauseSpeed: config.ride.autoPauseSpeed, rideSummaryInterval: config.ride.summaryIntervalSeconds,
            heartRateEnabled: config.heartRate.enabled, sunEnabled: config.sun.enabled,
            sunsetWarningLead: config.sun.warningLeadMinutes * 60, sunMoveThresholdMeters: config.sun.moveThresholdKilometers * 1000,
            sunPublishInterval: config.sun.publishIntervalSeconds)
        settings.readingQoS = config.mqtt.qos
        settings.heartRateMinimumInterval = config.mqtt.maxHeartRatePerSecond > 0 ? 1 / config.mqtt.maxHeartRatePerSecond : 0
        settings.gpsMinimumInterval = config.mqtt.maxGPSPerSecond > 0 ? 1 / config.mqtt.maxGPSPerSecond : 0
        settings.powerZones = config.zones.powerZones
        settings.autoLapMeters = config.ride.autoLapKilometers.map { $0 * 1000 }
        settings.gpsEnabled = config.gps.enabled
        settings.powerZoneMarginWatts = config.zones.powerMarginWatts
        settings.powerZoneDwellSeconds = config.zones.powerDwellSeconds
        settings.ledZones = config.led.zones
        settings.clockSamples = config.gps.enabled && config.gps.chronySocket != nil
        settings.privacyZones = config.privacyZones
        settings.ownTracks = config.ownTracks.map {
            OwnTracksSettings(topic: ownTracksTopic($0, config), trackerID: $0.trackerID, interval: $0.intervalSeconds, always: $0.always)
        }
        return settings
    }

    /// Where the bike is an OwnTracks device: `owntracks/<user>/<device>`.
    static func ownTracksTopic(_ ownTracks: GatewayConfig.OwnTracks, _ config: GatewayConfig) -> String {
        "owntracks/\(ownTracks.user)/\(ownTracks.device ?? deviceID(config))"
    }

    /// `afterOneShots`: called once the broker has taken every one-shot message (an earlier release's discovery
    /// configs cleared).
    package static func makeSinks(config: GatewayConfig, deviceID: String, store: any ReadingStore, health: HealthFields = HealthFields(),
                          loop: EventLoop, clearRetainedAtStop: Bool = false, afterOneShots: (@Sendable () -> Void)? = nil,
                          logger: Logger) throws(SetupError) -> [any EffectSink] {
        var sinks: [any EffectSink] = []
        switch config.led.mode {
        case .off:
            break
        case .console:
            sinks.append(LEDSink(output: ConsoleLEDOutput(logger: logger.labeled("led")), loop: loop))
        case .single, .rgb, .bar:
            do {
                let lines = try requestLEDLines(config)
                sinks.append(LEDSink(output: GPIOLEDOutput(lines: lines, logger: logger.labeled("led")), layout: ledLayout(config), loop: loop))
            } catch {
                throw SetupError(description: error.description)
            }
        }

        if config.gps.enabled, let path = config.gps.chronySocket {
            do {
                sinks.append(ClockSink(socket: try ChronySocket(path: path), logger: logger.labeled("clock")))
            } catch {
                throw SetupError(description: error.description)
            }
        }
        let prefix = "\(config.mqtt.prefix)/\(deviceID)"
        var settings = try mqttSettings(config, deviceID: deviceID)
        settings.clearRetainedAtStop = clearRetainedAtStop
        // The positions a killed run left retained: this run may never publish them (its ride inside a privacy zone).
        settings.alsoClearAtStop = [prefix + "/" + Topic.position.name] + (config.ownTracks.map { [ownTracksTopic($0, config)] } ?? [])
        do {
            let client = try MQTTPublisher(settings: settings, topicPrefix: prefix, store: store, replayRate: config.mqtt.replayPerSecond,
                                           healthFields: health, loop: loop,
                                           logger: logger.labeled("mqtt"))
            client.oneShotsDelivered = afterOneShots
            try client.start()
            sinks.append(MQTTSink(client: client))
        } catch {
            throw SetupError(description: error.description)
        }
        return sinks
    }

    /// The connection settings from `[mqtt]`: the daemon's (and the demo's), or a one-off probe's (`doctor`:
    /// its own client id, no retained status, no Home Assistant birth subscription).
    public static func mqttSettings(_ config: GatewayConfig, deviceID: String, probe: Bool = false) throws(SetupError) -> MQTTSettings {
        var password: String?
        if let file = config.mqtt.passwordFile {
            password = try readPassword(file)
        }
        let prefix = "\(config.mqtt.prefix)/\(deviceID)"
        var settings = MQTTSettings(
            host: config.mqtt.host, port: config.mqtt.port,
            clientID: probe ? "ridegate-doctor-\(deviceID)" : config.mqtt.clientID ?? "ridegate-\(deviceID)",
            keepaliveSeconds: probe ? 10 : config.mqtt.keepaliveSeconds, username: config.mqtt.username, password: password,
            reconnectMinSeconds: config.mqtt.reconnectMinSeconds, reconnectMaxSeconds: config.mqtt.reconnectMaxSeconds,
            statusTopic: probe ? nil : "\(prefix)/status", protocolVersion: config.mqtt.protocolVersion,
            homeAssistantStatusTopic: !probe && config.mqtt.homeAssistantDiscovery ? "\(config.mqtt.homeAssistantPrefix)/status" : nil,
            tls: config.mqtt.caFile.map { MQTTSettings.TLS(caFile: $0, certificateFile: config.mqtt.certificateFile, keyFile: config.mqtt.keyFile) })
        settings.otherBrokers = config.mqtt.otherBrokers
        return settings
    }

    /// The files the configuration names, checked as `run` would use them: the password file (readable, and by
    /// its owner only), the TLS files (readable). `run --check-config` reports the first problem, and `run`
    /// refuses to start on it as a configuration mistake (exit 78) rather than failing later in libmosquitto.
    public static func checkFiles(_ config: GatewayConfig) throws(SetupError) {
        if let file = config.mqtt.passwordFile { _ = try readPassword(file) }
        if let site = config.upload.intervalsICU { _ = try readSecret(site.apiKeyFile, key: "upload.intervals_icu.api_key_file") }
        if let site = config.upload.strava { _ = try readSecret(site.clientSecretFile, key: "upload.strava.client_secret_file") }
        let tlsFiles = [("mqtt.ca_file", config.mqtt.caFile), ("mqtt.cert_file", config.mqtt.certificateFile), ("mqtt.key_file", config.mqtt.keyFile)]
        for case let (key, path?) in tlsFiles {
            if let error = TextFile.unreadable(path) {
                throw SetupError(description: "\(key) = \"\(path)\": cannot read it (\(error)); check the path, and that the ridegate user can read it")
            }
        }
    }

    static let longestPasswordFile = 4096

    /// The first line of the password file; refused when its group or others can read it.
    static func readPassword(_ path: String) throws(SetupError) -> String {
        try readSecret(path, key: "mqtt.password_file")
    }

    /// The first line of a file holding a secret (a password, an API key, a client secret): a regular file of a
    /// few bytes that only its owner can read, refused otherwise with the command that fixes it.
    public static func readSecret(_ path: String, key: String) throws(SetupError) -> String {
        do {
            let mode = try TextFile.mode(path)
            if mode & 0o044 != 0 {
                let who = mode & 0o004 != 0 ? "anyone on the system" : "its group"
                throw SetupError(description: "\(key) = \"\(path)\": the file can be read by \(who); run: chmod 600 \(path)")
            }
            // A secret is a line: the file is a few bytes, never a FIFO or a device.
            let text = String(decoding: try SmallFile.read(path, limit: Self.longestPasswordFile), as: UTF8.self)
            // isNewline: a file saved on Windows ends its line in CR LF, one Character in Swift.
            let line = String(text.prefix { !$0.isNewline })
            guard key == "mqtt.password_file" || !line.isEmpty else {
                throw SetupError(description: "\(key) = \"\(path)\": the file is empty; put the secret on its first line")
            }
            return line
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError(description: "cannot read \(key): \(error)")
        }
    }
}
