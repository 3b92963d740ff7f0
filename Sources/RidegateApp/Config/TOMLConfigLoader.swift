import RidegateCore
import RidegateLinux

/// Reads a config file and hands its bytes to the core's `ConfigDocument` (TOML parsed by ridegate's own
/// parser, then validated into a `GatewayConfig`).
public enum TOMLConfigLoader {
    public static func load(path: String) throws(ConfigError) -> GatewayConfig {
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: ConfigText.maximumBytes)
        } catch {
            switch error {
            case .system(let failure):
                throw ConfigError(file: path, line: nil, key: "", problem: "cannot read the config file: \(failure.errno). Pass another with --config PATH, or copy deploy/ridegate.toml.example there")
            case .notAFile(_, let kind):
                throw ConfigError(file: path, line: nil, key: "", problem: "the config is \(kind), not a file; name a TOML file with --config PATH")
            case .tooLarge(_, let size, _):
                throw ConfigError(file: path, line: nil, key: "", problem: "the config is \(size) bytes, larger than 1 MiB: not a ridegate config (deploy/ridegate.toml.example is 5 KB)")
            }
        }
        return try ConfigDocument.parse(bytes, file: path)
    }

    public static func parse(_ text: String, file: String) throws(ConfigError) -> GatewayConfig {
        try ConfigDocument.parse(Array(text.utf8), file: file)
    }
}
