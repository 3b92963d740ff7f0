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
            Exit status: 0 after an orderly stop, 78 for a configuration error, 69 when a device cannot be set up.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Validate the configuration file, report the first problem, and exit 0 (valid) or 1 (invalid).")
    var checkConfig = false

    func run() async throws {
        let config: GatewayConfig
        do {
            config = try TOMLConfigLoader.load(path: global.config)
        } catch {
            writeError(error.description)
            throw ExitCode(checkConfig ? 1 : ExitStatus.config)
        }
        do {
            try GatewayAssembly.checkFiles(config)
        } catch {
            writeError("\(global.config): \(error.description)")
            throw ExitCode(checkConfig ? 1 : ExitStatus.config)
        }
        if checkConfig {
            print("\(global.config): configuration is valid")
            return
        }
        let logger = global.logger(configured: config.logLevel)
        let signals = TerminationSignals(logger: logger)
        let gateway: Gateway
        do {
            gateway = try GatewayAssembly.daemon(config: config, version: RidegateVersion.current, logger: logger)
        } catch {
            logger.critical("cannot start", [("error", error.description)])
            throw ExitCode(ExitStatus.unavailable)
        }
        logger.info("ridegate started", [("version", RidegateVersion.current), ("device_id", GatewayAssembly.deviceID(config))])
        _ = await gateway.run(signals: signals.signals)
    }
}
