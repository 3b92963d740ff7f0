/// What a config file's bytes must be before the TOML parser sees them: small (a ridegate config is a few
/// kilobytes; /dev/zero given as the config must not grow to gigabytes) and free of NUL bytes (a binary
/// file, or a copy cut short: said as such, rather than as a TOML syntax error somewhere in the middle).
/// Everything else (nesting, dates, brackets) is the parser's to refuse, with line and column.
public enum ConfigText {
    public static let maximumBytes = 1 << 20

    /// The text of `bytes`, or the first reason it cannot be a config, with its line and column.
    public static func check(_ bytes: [UInt8], file: String) throws(ConfigError) -> String {
        guard bytes.count <= maximumBytes else {
            throw ConfigError(file: file, line: nil, key: "",
                              problem: "the file is larger than 1 MiB (a ridegate config is a few kilobytes): is --config the right file?")
        }
        if let nul = bytes.firstIndex(of: 0) {
            let (line, column) = position(of: nul, in: bytes)
            throw ConfigError(file: file, line: line, column: column, key: "",
                              problem: "a NUL byte: the file is binary or was cut short while copying (everything after it would be ignored)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func position(of index: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for (i, b) in bytes[..<index].enumerated() where b == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return (line, bytes[lineStart..<index].filter { $0 & 0xC0 != 0x80 }.count + 1)
    }
}
