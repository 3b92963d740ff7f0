import ArgumentParser
import RidegateApp
import RidegateCore
import RidegateLinux

struct LEDCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "led",
        abstract: "Check the LED wiring, or switch the LED off.",
        discussion: """
            Uses the [led] section of the configuration. `ridegate led off` is what the systemd unit runs after \
            the daemon stops (ExecStopPost=), so a crash never leaves the LED lit.
            """,
        subcommands: [Test.self, Off.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show every zone and status pattern in turn, each for a few seconds, naming it on the console.")

        @OptionGroup var configFile: ConfigFileOption

        @Option(help: ArgumentHelp("Seconds per pattern (1 to 30).", valueName: "seconds"))
        var seconds: Int = 4

        func validate() throws {
            guard (1...30).contains(seconds) else { throw ValidationError("The value '\(seconds)' is invalid for '--seconds'. Use a whole number of seconds from 1 to 30.") }
        }

        @Flag(help: "Show the patterns as console lines instead of on the GPIO line (no hardware needed).")
        var console = false

        func run() async throws {
            let settings = try configFile.load()
            let logger = Logger(label: "led", level: .info, handler: StandardErrorLogHandler.detect())
            let output = try LEDCommand.output(settings, console: console, logger: logger)
            let loop = try processLoop()
            let sink = LEDSink(output: output, layout: GatewayAssembly.ledLayout(settings), loop: loop)
            let zones = settings.zones.zones.count
            let signals: [LEDSignal] = (0...zones).map { .zone($0, of: zones) } + [.zoneAtDusk(2, of: zones)] + LEDSignal.statuses
            let stop = TerminationSignals(on: loop)
            let each = UInt64(seconds) * 1_000_000_000
            _ = await withDeadline(seconds: nil, on: loop, stop: stop.signals) {
                for signal in signals {
                    if Task.isCancelled { return }
                    logger.notice("showing", [("led.signal", signal.description)])
                    sink.apply(.showOnLED(signal))
                    await loop.sleep(seconds: Double(each) / 1e9)
                }
            }
            await sink.shutdown()
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drive the LED line low and release it.")

        @OptionGroup var configFile: ConfigFileOption

        func run() throws {
            let settings = try configFile.load()
            do {
                for line in try GatewayAssembly.requestLEDLines(settings) { line.release() } // each is driven off first
            } catch {
                writeError(error.description)
                throw ExitCode(ExitStatus.unavailable)
            }
        }
    }

    static func output(_ config: GatewayConfig, console: Bool, logger: Logger) throws -> any LEDOutput {
        if !console, config.led.selectors.isEmpty {
            logger.notice("no GPIO line is configured (led.mode is \(config.led.mode.rawValue)): showing the patterns on the console; set led.mode and led.line to drive an LED")
        }
        if console || config.led.selectors.isEmpty { return ConsoleLEDOutput(logger: logger) }
        do {
            return GPIOLEDOutput(lines: try GatewayAssembly.requestLEDLines(config), logger: logger)
        } catch {
            writeError(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}
