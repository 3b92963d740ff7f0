import RidegateCore
import RidegateLinux

/// The configuration of a daemon whose file is edited from a laptop (the SD-card image's FAT partition): the file
/// when it passes its check, and then kept as the last good copy; otherwise the last good copy, with the file's
/// problem, so a typo made on a laptop never leaves the bike without its gateway. The copy is always what ran
/// last, so the unit's `led off` can use it whatever the file says.
public struct LastGoodConfig {
    public let config: GatewayConfig
    /// Why the file was not used (file:line: key: what to do), when the last good copy runs instead.
    public let rejected: String?
    /// A problem keeping the copy (the state partition read-only): said, and the run goes on.
    public let notKept: String?

    /// `check` is what `run --check-config` does besides parsing (files the config names must be readable).
    public static func load(path: String, lastGood: String,
                            check: (GatewayConfig) throws(GatewayAssembly.SetupError) -> Void) throws(ConfigError) -> LastGoodConfig {
        do throws(ConfigError) {
            let config = try loadChecked(path, check: check)
            return LastGoodConfig(config: config, rejected: nil, notKept: keep(path, as: lastGood))
        } catch {
            guard let fallback = try? loadChecked(lastGood, check: check) else { throw error }
            return LastGoodConfig(config: fallback, rejected: error.description, notKept: nil)
        }
    }

    /// What a command other than `run` reads by default (`ridegate watch`, `doctor`, `led test`, `rides`, `upload`):
    /// the file, or, when it fails and the daemon keeps a last good copy at `lastGood`, that copy, as the daemon
    /// runs it — `rejected` says why. Nothing is kept: only the daemon writes the copy.
    public static func reading(path: String, lastGood: String) throws(ConfigError) -> LastGoodConfig {
        do throws(ConfigError) {
            return LastGoodConfig(config: try TOMLConfigLoader.load(path: path), rejected: nil, notKept: nil)
        } catch {
            guard let kept = try? TOMLConfigLoader.load(path: lastGood) else { throw error }
            return LastGoodConfig(config: kept, rejected: error.description, notKept: nil)
        }
    }

    /// The file alone, checked, as `run` without --last-good takes it.
    public static func checked(path: String,
                               check: (GatewayConfig) throws(GatewayAssembly.SetupError) -> Void) throws(ConfigError) -> LastGoodConfig {
        LastGoodConfig(config: try loadChecked(path, check: check), rejected: nil, notKept: nil)
    }

    private static func loadChecked(_ path: String,
                                    check: (GatewayConfig) throws(GatewayAssembly.SetupError) -> Void) throws(ConfigError) -> GatewayConfig {
        let config = try TOMLConfigLoader.load(path: path)
        do {
            try check(config)
        } catch {
            throw ConfigError(file: path, line: nil, key: "", problem: error.description)
        }
        return config
    }

    /// Copies the file that passed to `lastGood` (atomically: a power cut leaves the old copy or the new one).
    private static func keep(_ path: String, as lastGood: String) -> String? {
        do {
            let bytes = try SmallFile.read(path, limit: ConfigText.maximumBytes)
            if let kept = try? SmallFile.read(lastGood, limit: ConfigText.maximumBytes), kept == bytes { return nil }
            let file = try AtomicFile(replacing: lastGood, mode: 0o600)
            try file.write(bytes)
            try file.commit()
            return nil
        } catch {
            return "cannot keep the configuration as the last good copy \(lastGood): \(error)"
        }
    }
}
