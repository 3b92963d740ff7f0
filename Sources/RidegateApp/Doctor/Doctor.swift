import Glibc
import RidegateCore
import RidegateLinux

/// The checks behind `ridegate doctor`: each probes one thing on this machine and says what to do.
public struct Doctor: Sendable {
    public let configPath: String
    /// The daemon's last good copy, which the checks use when the file fails (the SD-card image's `run --last-good`).
    let lastGood: String?
    let logger: Logger
    /// Where its probes read and wait.
    let loop: EventLoop

    public init(configPath: String, lastGood: String? = nil, loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.configPath = configPath
        self.lastGood = lastGood
        self.logger = logger
    }

    public func run() async -> [DoctorCheck] {
        let (config, configured) = configuration()
        var checks = configured
        checks += await gps(config)
        checks += serialConfiguration(config)
        checks += await bluetooth(config)
        checks.append(gpio(config))
        checks.append(await broker(config))
        checks.append(clock())
        return checks
    }

    /// The configuration the checks use and its own check: the file (named with what it links to: the image's is the
    /// card's FAT file); when it fails, the daemon's last good copy if there is one (what the daemon runs), else the
    /// defaults, since the rest is still worth knowing (a new Pi often has no config yet).
    private func configuration() -> (GatewayConfig, [DoctorCheck]) {
        let resolved = ProcessPaths.resolved(configPath)
        let named = resolved == configPath ? configPath : "\(configPath) (→ \(resolved))"
        let config: GatewayConfig
        do {
            config = try TOMLConfigLoader.load(path: configPath)
        } catch {
            let fix = "correct the file (or copy deploy/ridegate.toml.example there); `ridegate run --check-config` re-checks it"
            if let lastGood, let kept = try? TOMLConfigLoader.load(path: lastGood) {
                return (kept, [DoctorCheck("configuration", .fail, error.description + "; the daemon runs the last good copy \(lastGood), "
                                           + "and the checks below use it", fix: fix)])
            }
            return (GatewayConfig(), [DoctorCheck("configuration", .fail, error.description + "; the checks below use the defaults", fix: fix)])
        }
        var checks = [DoctorCheck("configuration", .pass, "\(named) is valid")]
        do {
            try GatewayAssembly.checkFiles(config)
        } catch {
            checks.append(DoctorCheck("configured files", .fail, error.description))
        }
        return (config, checks)
    }

    func gps(_ config: GatewayConfig) async -> [DoctorCheck] {
        guard config.gps.enabled else { return [DoctorCheck("GPS", .skip, "gps.enabled = false")] }
        if let gpsd = config.gps.gpsd {
            do {
                let socket = try await TCPConnection.connect(host: gpsd.host, port: gpsd.port, timeout: 3)
                socket.close()
                return [DoctorCheck("GPS", .pass, "gpsd answers on \(gpsd); ridegate reads the receiver through it")]
            } catch {
                return [DoctorCheck("GPS", .fail, "gpsd at \(gpsd): \(error)", fix: "start gpsd (systemctl start gpsd), or check gps.gpsd")]
            }
        }
        // gpsd holds the receiver's port open: both cannot read it.
        let gpsdRunning = ProcessPaths.processRunning(named: "gpsd")
        let gpsdCheck = gpsdRunning ? [DoctorCheck("gpsd", .warn, "gpsd is running: if it has the receiver open, ridegate and gpsd both read it and each sees half the data",
                                                   fix: "read through it: set gps.gpsd = \"localhost:2947\" (and remove gps.device), or stop gpsd (systemctl disable --now gpsd.socket gpsd)")] : []
        guard TextFile.unreadable(config.gps.device)?.rawValue != ENOENT else {
            return gpsdCheck + [DoctorCheck("GPS", .fail, "\(config.gps.device) does not exist",
                                fix: "plug the receiver in; install udev/60-ridegate.rules for /dev/ridegate-gps, or set gps.device (ls /dev/ttyACM* /dev/ttyUSB* /dev/serial0)")]
        }
        return gpsdCheck + (await gpsPort(config))
    }

    func gpsPort(_ config: GatewayConfig) async -> [DoctorCheck] {
        do {
            if let rate = try await BaudRateDetector(devicePath: config.gps.device, loop: loop, listenSeconds: 2).detect() {
                let configured: String
                switch config.gps.baud {
                case .auto: configured = "auto"
                case .fixed(let r): configured = String(r)
                }
                let matches = configured == "auto" || configured == String(rate)
                return [DoctorCheck("GPS", matches ? .pass : .fail, "valid NMEA at \(rate) baud on \(config.gps.device)",
                                    fix: matches ? nil : "set gps.baud = \(rate) (or \"auto\")")]
            }
            return [DoctorCheck("GPS", .fail, "\(config.gps.device) sends no valid NMEA at any common rate",
                                fix: "check power and wiring (module TX to the Pi's RX, pin 10), and that nothing else (gpsd, a serial console) uses the port")]
        } catch {
            return [DoctorCheck("GPS", .fail, error.description)]
        }
    }

    func serialConfiguration(_ config: GatewayConfig) -> [DoctorCheck] {
        let model = (try? TextFile.read("/proc/device-tree/model"))?.replacingZeros() ?? ""
        guard model.contains("Raspberry Pi") else {
            return [DoctorCheck("UART and Bluetooth", .skip, "not a Raspberry Pi")]
        }
        let configTxt = (try? TextFile.read("/boot/firmware/config.txt")) ?? (try? TextFile.read("/boot/config.txt")) ?? ""
        let cmdline = (try? TextFile.read("/boot/firmware/cmdline.txt")) ?? (try? TextFile.read("/boot/cmdline.txt")) ?? ""
        let device = ProcessPaths.resolved(config.gps.device)
        return PiSerialConfiguration.check(model: model, configTxt: configTxt, cmdlineTxt: cmdline, gpsDevice: device)
    }

    static func checkName(_ kind: SensorProfile) -> String { kind.plural }

    func bluetooth(_ config: GatewayConfig) async -> [DoctorCheck] {
        let kinds = SensorProfile.builtIn.filter { kind in config.bluetoothSensors.contains { $0.kind == kind } }
        guard !kinds.isEmpty else { return [DoctorCheck("Bluetooth", .skip, "no BLE sensor configured (heart_rate.enabled = false, no [[sensor]])")] }
        var checks: [DoctorCheck] = []
        let capabilities = Capabilities.effective()
        if capabilities.netAdmin && capabilities.netRaw {
            checks.append(DoctorCheck("capabilities", .pass, "CAP_NET_ADMIN and CAP_NET_RAW"))
        } else {
            checks.append(DoctorCheck("capabilities", .warn, "this process lacks CAP_NET_ADMIN/CAP_NET_RAW (the systemd unit grants them)",
                                      fix: "run doctor as root (sudo ridegate doctor) to check the adapter as the daemon would"))
        }
        if let blocked = Rfkill.bluetoothBlocked(), blocked {
            checks.append(DoctorCheck("Bluetooth adapter", .fail, "Bluetooth is blocked by rfkill", fix: "rfkill unblock bluetooth"))
            return checks
        }
        do {
            let scanner = AdvertisementScanner(loop: loop)
            // Distinct devices per kind (a device advertises many times a second).
            let seen = Locked<[SensorProfile: Set<[UInt8]>]>([:])
            // Four seconds of advertisements; a scanner error ends it sooner.
            let outcome: BluetoothError? = await withDeadline(seconds: 4, on: loop) { () async -> BluetoothError? in
                do throws(BluetoothError) {
                    try await scanner.scan { device in
                        for kind in device.advertising.sensorKinds { _ = seen.withLock { $0[kind, default: []].insert(device.address.bytes) } }
                    }
                    return nil
                } catch {
                    return error
                }
            }.value(or: nil)
            if let outcome { throw outcome }
            let heard = seen.withLock { $0 }
            checks.append(DoctorCheck("Bluetooth adapter", .pass, "powered; scanning works"))
            for kind in kinds {
                let count = heard[kind]?.count ?? 0
                let wake = kind.wakeHint
                checks.append(DoctorCheck(Self.checkName(kind), count > 0 ? .pass : .warn,
                                          count > 0 ? "\(count) advertising nearby" : "none heard in 4 s",
                                          fix: count > 0 ? nil : "\(wake); `ridegate scan` lists what is heard"))
            }
        } catch {
            checks.append(DoctorCheck("Bluetooth adapter", .fail, "\(error)"))
        }
        return checks
    }

    func gpio(_ config: GatewayConfig) -> DoctorCheck {
        guard !config.led.selectors.isEmpty else { return DoctorCheck("LED", .skip, "led.mode = \"\(config.led.mode.rawValue)\"") }
        let places: [String]
        do {
            let lines = try GatewayAssembly.requestLEDLines(config, consumer: "ridegate-doctor")
            places = lines.map { "\($0.chipPath) line \($0.offset)" }
            lines.forEach { $0.release() }
        } catch {
            return DoctorCheck("LED", .fail, error.description)
        }
        return DoctorCheck("LED", .pass, "\(places.joined(separator: ", ")) free; `ridegate led test` walks the patterns")
    }

    /// Each broker of `mqtt.host` or `mqtt.hosts`, one probe each: passes when all connect, warns when some
    /// do (the gateway moves to those), fails when none does.
    func broker(_ config: GatewayConfig) async -> DoctorCheck {
        let id = GatewayAssembly.deviceID(config)
        let settings: MQTTSettings
        do {
            settings = try GatewayAssembly.mqttSettings(config, deviceID: id, probe: true)
        } catch {
            return DoctorCheck("MQTT broker", .fail, error.description)
        }
        var connected: [String] = [], failed: [String] = []
        for broker in settings.brokers {
            let target = "\(broker.host):\(broker.port)\(config.mqtt.caFile == nil ? "" : " (TLS)")"
            var one = settings
            (one.host, one.port, one.otherBrokers) = (broker.host, broker.port, [])
            if let reason = await probe(one, prefix: "\(config.mqtt.prefix)/\(id)") { failed.append("no connection to \(target): \(reason)") } else { connected.append(target) }
        }
        let fix = "check mqtt.host/port (or mqtt.hosts), the network, and (with TLS or a password) the broker's log for why it refused"
        if failed.isEmpty { return DoctorCheck("MQTT broker", .pass, "connected to \(connected.joined(separator: ", "))") }
        if connected.isEmpty { return DoctorCheck("MQTT broker", .fail, failed.joined(separator: "; "), fix: fix) }
        return DoctorCheck("MQTT broker", .warn, "connected to \(connected.joined(separator: ", ")); \(failed.joined(separator: "; "))", fix: fix)
    }

    /// One connection attempt to the one broker of `settings`: nil when it connected, else why not.
    private func probe(_ settings: MQTTSettings, prefix: String) async -> String? {
        do {
            let client = try MQTTPublisher(settings: settings, topicPrefix: prefix, loop: loop, logger: logger.labeled("mqtt"))
            try client.start()
            // A refusal or a name that does not resolve is known at once: no reason to wait out the 5 s.
            let connected = await client.waitUntilConnected(timeout: 5, untilFirstFailure: true)
            let reason = client.lastFailure
            await client.shutdown(timeout: 0.5)
            return connected ? nil : reason ?? "no answer within 5 s"
        } catch {
            return error.description
        }
    }

    func clock() -> DoctorCheck {
        let gpsTime = "nothing to do for riding: ridegate stamps readings from GPS time once it has a fix, and says clock_trusted"
        switch SystemClock.isSynchronised {
        case true?:
            return DoctorCheck("clock", .pass, "the system clock is synchronised")
        case false?:
            return DoctorCheck("clock", .warn, "the system clock is not synchronised (no network time, no RTC)", fix: gpsTime)
        case nil:
            return DoctorCheck("clock", .warn, "cannot tell whether the system clock is synchronised (adjtimex refused)",
                               fix: "run doctor outside the service's sandbox; " + gpsTime)
        }
    }
}

extension String {
    /// Device-tree strings end in NUL.
    func replacingZeros() -> String { String(filter { $0 != "\0" }) }
}

/// The calling process's effective capabilities (/proc/self/status CapEff).
enum Capabilities {
    static func effective() -> (netAdmin: Bool, netRaw: Bool) {
        guard let status = try? TextFile.read("/proc/self/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
              let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16) else { return (false, false) }
        return (mask & (1 << 12) != 0, mask & (1 << 13) != 0) // CAP_NET_ADMIN = 12, CAP_NET_RAW = 13
    }
}
