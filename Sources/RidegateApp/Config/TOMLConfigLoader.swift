import RidegateCore
import RidegateLinux

/// Reads a config file and hands its bytes to the core's `ConfigDocument` (TOML parsed by ridegate's own
/// parser, then validated into a `GatewayConfig`).
public enum TOMLConfigLoader {
    public static func load(path: String) throws(ConfigError) -> GatewayConfig {
        let bytes: [UInt8]
        do {
            bytes = try TextFile.readBytes(path, limit: ConfigText.maximumBytes)
        } catch {
            throw ConfigError(file: path, line: nil, key: "", problem: "cannot read the config file: \(error.errno). Pass another with --config PATH, or copy deploy/ridegate.toml.example there")
        }
        return try ConfigDocument.parse(bytes, file: path)
    }

    public static func parse(_ text: String, file: String) throws(ConfigError) -> GatewayConfig {
        try ConfigDocument.parse(Array(text.utf8), file: file)
    }
}
