import ArgumentParser
import RidegateApp
import RidegateCore
import RidegateLinux

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the gateway daemon (what the systemd unit starts).",
        discussion: """
            Reads the configuration, opens the GPS and the LED, connects to the MQTT broker, and runs until \
            SIGINT or SIGTERM, then stops in order: LED off, status "offline" published, files closed.
            With --last-good PATH (the SD-card image's unit: its configuration is edited on the card's FAT \
            partition, from a laptop), a file that passes its check is kept at PATH, and a file that fails it is \
            said in the log while PATH's copy runs; `health` (config: "last_good") and the LED say so too.
            Exit status: 0 after an orderly stop, 78 for a configuration error, 69 when a device cannot be set up.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Validate the configuration file, report the first problem, and exit 0 (valid) or 1 (invalid).")
    var checkConfig = false

    @Option(help: ArgumentHelp("Keep the configuration that passed at this path, and run with it when --config fails its check.",
                               valueName: "path"))
    var lastGood: String?

    func run() async throws {
        let loaded = try loadConfiguration()
        let config = loaded.config
        if checkConfig {
            print("\(global.config): configuration is valid")
            return
        }
        let logger = global.logger(configured: config.logLevel)
        if let rejected = loaded.rejected, let lastGood {
            logger.error("the configuration file was refused; running the last good one until it is fixed",
                         [("error", rejected), ("config.last_good", lastGood), ("fix", "correct the file (ridegate run --check-config --config \(global.config)) and restart")])
        }
        if let notKept = loaded.notKept { logger.warning("the configuration runs, but was not kept as the last good one", [("error", notKept)]) }
        let loop = try processLoop()
        let signals = TerminationSignals(on: loop, logger: logger)
        let gateway: Gateway
        do {
            gateway = try GatewayAssembly.daemon(
                config: config, version: RidegateVersion.current, lastGoodInForce: loaded.rejected != nil, loop: loop, logger: logger)
        } catch {
            logger.critical("cannot start", [("error", error.description)])
            throw ExitCode(ExitStatus.unavailable)
        }
        logger.info("ridegate started", [("version", RidegateVersion.current), ("device_id", GatewayAssembly.deviceID(config))])
        _ = await gateway.run(signals: signals.signals)
    }

    /// The file's configuration, checked; with --last-good (and not --check-config), the last good copy when the file fails.
    private func loadConfiguration() throws -> LastGoodConfig {
        let check = { (config: GatewayConfig) throws(GatewayAssembly.SetupError) in try GatewayAssembly.checkFiles(config) }
        do throws(ConfigError) {
            if let lastGood, !checkConfig { return try LastGoodConfig.load(path: global.config, lastGood: lastGood, check: check) }
            return try LastGoodConfig.checked(path: global.config, check: check)
        } catch {
            writeError(error.description)
            throw ExitCode(checkConfig ? 1 : ExitStatus.config)
        }
    }
}
