import Foundation

/// Config files the command tests write.
enum TestConfigs {
    /// A daemon with neither GPS nor heart rate (only the sun, the status and health), on a local broker.
    static func quiet(deviceID: String, dir: String, brokerPort: Int, to path: String) throws {
        try """
            device_id = "\(deviceID)"
            state_directory = "\(dir)/state"
            [mqtt]
            host = "127.0.0.1"
            port = \(brokerPort)
            [gps]
            enabled = false
            [heart_rate]
            enabled = false
            """.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A bike's broker login over MQTT 5: `<dir>/<user>.password` (mode 600) and `<dir>/<name>.toml` with the
    /// `[mqtt]` lines and `extra` ones; the config's path.
    static func bike(user: String, name: String, dir: String, extra: String = "") throws -> String {
        try "\(user) pass\n".write(toFile: "\(dir)/\(user).password", atomically: true, encoding: .utf8)
        chmod("\(dir)/\(user).password", 0o600)
        let path = "\(dir)/\(name).toml"
        try """
            [mqtt]
            username = "\(user)"
            password_file = "\(dir)/\(user).password"
            protocol = "5"
            \(extra)
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
