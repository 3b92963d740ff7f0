import ArgumentParser
import RidegateApp
import RidegateCore
import RidegateLinux

/// `--config`: the one declaration every command that reads the configuration shares.
struct ConfigFileOption: ParsableArguments {
    /// On the SD-card image a link to the card's FAT partition (/boot/firmware/ridegate.toml), which the rider edits
    /// from a laptop, so every command reads the file the daemon runs.
    static let defaultPath = "/etc/ridegate/ridegate.toml"
    /// Where the image's daemon keeps the last configuration that passed (its unit's `run --last-good`).
    static let lastGoodPath = "/var/lib/ridegate/last-good.toml"

    @Option(name: .customLong("config"), help: ArgumentHelp("The configuration file (default: \(Self.defaultPath)).", valueName: "path"))
    var named: String?

    var config: String { named ?? Self.defaultPath }

    /// The validated configuration; a mistake is printed (file:line: key: what to do) and exits 78.
    func load() throws -> GatewayConfig {
        if let named { return try Self.load(path: named) }
        return try Self.loadDefault()
    }

    /// The configuration, or its mistake (`saying`: the default file's link and fallback said, as `load()` says them).
    func find(saying: Bool = false) throws(ConfigError) -> GatewayConfig {
        if let named { return try TOMLConfigLoader.load(path: named) }
        return try Self.findDefault(saying: saying)
    }

    /// The default file, exiting 78 with its mistake (`watch`, whose --config is optional, reads it when it is there).
    static func loadDefault() throws -> GatewayConfig {
        do {
            return try findDefault(saying: true)
        } catch {
            writeError(error.description)
            throw ExitCode(ExitStatus.config)
        }
    }

    /// The default file, whose link is said (on the image: to the card's FAT file); when it fails and the daemon keeps
    /// a last good copy, that copy, as the daemon runs it, said with the file's mistake.
    private static func findDefault(saying: Bool) throws(ConfigError) -> GatewayConfig {
        let resolved = ProcessPaths.resolved(defaultPath)
        if saying, resolved != defaultPath { writeError("configuration: \(defaultPath) → \(resolved)") }
        let loaded = try LastGoodConfig.reading(path: defaultPath, lastGood: lastGoodPath)
        if saying, let rejected = loaded.rejected {
            writeError("\(rejected)\n  read instead: the last good copy \(lastGoodPath), which the daemon runs until the file is fixed "
                       + "(ridegate run --check-config --config \(resolved))")
        }
        return loaded.config
    }

    /// The last good copy `doctor` checks with when the default file fails (nil with --config: that file alone).
    var lastGood: String? { named == nil ? Self.lastGoodPath : nil }

    /// The same for a file named another way (`demo --config`, `watch --config`).
    static func load(path: String) throws -> GatewayConfig {
        do {
            return try TOMLConfigLoader.load(path: path)
        } catch {
            writeError(error.description)
            throw ExitCode(ExitStatus.config)
        }
    }
}

/// `--broker host:port`, parsed the one way (the demo's and watch's): errors say what is wrong.
func brokerArgument(_ text: String) throws -> BrokerAddress {
    do throws(BrokerAddress.ParseError) {
        return try BrokerAddress(parsing: text)
    } catch {
        throw ValidationError(error.description)
    }
}

/// `--log-level`, shared by the commands that log as they run.
struct LogLevelOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Log at this level and above: trace, debug, info, notice, warning, error, critical. Overrides log_level in the config.",
        valueName: "level"))
    var logLevel: LogLevelArgument?

    func logger(configured: Logger.Level) -> Logger {
        Logger(label: "ridegate", level: logLevel?.level ?? configured, handler: StandardErrorLogHandler.detect())
    }
}

/// Options every long-running command shares.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var configFile: ConfigFileOption
    @OptionGroup var logging: LogLevelOption

    var config: String { configFile.config }

    func logger(configured: Logger.Level) -> Logger { logging.logger(configured: configured) }
}

struct LogLevelArgument: ExpressibleByArgument {
    let level: Logger.Level

    init?(argument: String) {
        guard let level = Logger.Level(name: argument) else { return nil }
        self.level = level
    }

    static var allValueStrings: [String] { Logger.Level.allCases.map(\.name) }
}

/// Exit codes from sysexits(3), so scripts and systemd can tell a config mistake from a crash.
enum ExitStatus {
    static let dataError: Int32 = 65
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let config: Int32 = 78
}

func writeError(_ message: String) {
    try? FileDescriptor(rawValue: 2).writeAll(Array(("ridegate: " + message + "\n").utf8))
}

/// The process's event loop, which `RidegateMain` binds for every command's tasks (`EventLoop.runProcess`): what
/// a command's connections, timers and reads run on. Without it the program was wired wrongly: 70, said.
func processLoop() throws -> EventLoop {
    guard let loop = EventLoop.current else {
        writeError("no event loop is bound to this command (a wiring fault, not yours): please report it")
        throw ExitCode(ExitStatus.software)
    }
    return loop
}
