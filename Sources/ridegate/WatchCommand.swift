import ArgumentParser
import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A live view of a running gateway: sensors, heart rate, speed, ride, sun, GPS, spool, broker.",
        discussion: """
            Reads what the gateway publishes, from the broker in its configuration (retained state at once, \
            then every reading), and redraws the terminal in place at most four times a second. It opens no \
            device, so it runs beside the daemon, on the Pi or on any machine that reaches the broker. Units \
            and the 12/24-hour clock follow `units` and `clock` in the configuration (the clock: the locale). \
            --once prints the view a second after connecting and exits (for scripts).
            """)

    @Option(name: .long, help: ArgumentHelp("The configuration file (optional: without it, the defaults and the options below).", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp("The MQTT broker, as host:port or host (default: the configuration's).", valueName: "host:port"),
            transform: brokerArgument)
    var broker: BrokerAddress?

    @Option(help: ArgumentHelp("The gateway's device id (default: the configuration's device_id, else this host's name; the demo's is '<host>-demo').", valueName: "id"))
    var deviceID: String?

    @Flag(help: "Print the view once, a second after connecting, and exit (0; 69 when the broker cannot be reached in 10 s).")
    var once = false

    func validate() throws {
        if let id = deviceID, !DeviceID.isValid(id) {
            throw ValidationError("The value '\(id)' is invalid for '--device-id'. Use letters, digits, '-' and '_'.")
        }
    }

    func run() async throws {
        var settings = GatewayConfig()
        if let config {
            settings = try ConfigFileOption.load(path: config)
        } else if TextFile.unreadable(ConfigFileOption.defaultPath) == nil {
            settings = try ConfigFileOption.loadDefault()
        }
        if let broker {
            settings.mqtt.host = broker.host
            settings.mqtt.port = broker.port
        }
        let device = deviceID ?? GatewayAssembly.deviceID(settings)
        var mqtt: MQTTSettings
        do {
            mqtt = try GatewayAssembly.mqttSettings(settings, deviceID: device, probe: true)
        } catch {
            writeError(error.description)
            throw ExitCode(ExitStatus.config)
        }
        mqtt.clientID = "ridegate-watch-\(device)-\(getpid())"
        let prefix = "\(settings.mqtt.prefix)/\(device)/"
        let loop = try processLoop()
        let subscription: MQTTSubscription
        do {
            subscription = try MQTTSubscription(settings: mqtt, filter: prefix + "#", loop: loop)
        } catch {
            writeError(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
        let screen = WatchScreen(units: settings.displayUnits, deviceID: device, broker: "\(mqtt.host):\(mqtt.port)",
                                 localTimeOfDay: LocalTime.secondsSinceMidnight)
        subscription.start()
        let view = WatchView(screen: screen, prefix: prefix, once: once, loop: loop)
        let outcome = await withDeadline(seconds: nil, on: loop, stop: TerminationSignals(on: loop).signals) {
            await view.follow(subscription.events)
        }
        await subscription.stop()
        if case .finished(let code) = outcome, code != 0 { throw ExitCode(code) }
    }
}

/// Draws the screen as messages arrive: at most every 0.25 s, and once more after a burst (retained state).
private actor WatchView {
    let screen: WatchScreen
    let prefix: String
    let once: Bool
    /// Times the redraws and the waits of --once.
    let loop: EventLoop
    private var state = WatchState()
    private var connected = false
    private var lastDraw = 0.0
    private var drawPending = false
    let terminal = isatty(1) == 1

    init(screen: WatchScreen, prefix: String, once: Bool, loop: EventLoop) {
        self.loop = loop
        self.screen = screen
        self.prefix = prefix
        self.once = once
    }

    /// Returns the exit status (only `--once` returns).
    func follow(_ events: AsyncStream<MQTTSubscription.Event>) async -> Int32 {
        if once {
            // Give up on a broker that does not answer within 10 s, and at once on one that refuses or a name
            // that does not resolve (the first attempt says so); print a second after connecting (the retained state).
            let contact = await withDeadline(seconds: 10, on: loop) { [self] () async -> String? in
                for await event in events {
                    if case .disconnected(let reason) = event, await !connected { return reason }
                    await take(event)
                    if await connected { return nil }
                }
                return "the connection ended"
            }.value(or: "no answer within 10 s")
            if let reason = contact {
                writeError("cannot reach the broker \(screen.broker): \(reason)")
                return ExitStatus.unavailable
            }
            _ = await withDeadline(seconds: 1, on: loop) { [self] in
                for await event in events { await take(event) }
            }
            try? FileDescriptor(rawValue: 1).writeAll(Array((screen.lines(state, connected: connected).joined(separator: "\n") + "\n").utf8))
            return 0
        }
        draw()
        for await event in events {
            take(event)
            scheduleDraw()
        }
        return 0
    }

    func take(_ event: MQTTSubscription.Event) {
        switch event {
        case .connected: connected = true
        case .disconnected: connected = false
        case .message(let topic, let payload):
            guard topic.hasPrefix(prefix) else { return }
            state.receive(topic: String(topic.dropFirst(prefix.count)), payload: payload)
        }
    }

    private func scheduleDraw() {
        let now = SystemClock.monotonicSeconds()
        if now - lastDraw >= 0.25 {
            draw()
            return
        }
        guard !drawPending else { return }
        drawPending = true
        Task {
            await loop.sleep(seconds: max(0, 0.25 - (now - lastDraw)))
            drawLater()
        }
    }

    private func drawLater() {
        drawPending = false
        draw()
    }

    private func draw() {
        lastDraw = SystemClock.monotonicSeconds()
        let lines = screen.lines(state, connected: connected)
        // Home, then each line with the rest of it cleared, then everything below: redrawn in place, no flicker.
        let text = terminal ? "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J" : lines.joined(separator: "\n") + "\n"
        // Straight to the descriptor: one write per frame, nothing left in stdio's buffer.
        try? FileDescriptor(rawValue: 1).writeAll(Array(text.utf8))
    }
}
