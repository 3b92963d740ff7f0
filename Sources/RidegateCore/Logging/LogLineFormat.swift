/// One log line: `LEVEL label: message key=value …`, values quoted (and escaped) when they contain spaces,
/// quotes, backslashes or control characters.
public enum LogLineFormat {
    public static func line(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        var text = level.name
        text.append(" ")
        text.append(label)
        text.append(": ")
        text.append(message)
        for (key, value) in metadata {
            text.append(" ")
            text.append(key)
            text.append("=")
            if value.isEmpty
                || value.unicodeScalars.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F })
            {
                text.append("\"")
                text.append(escaped(value))
                text.append("\"")
            } else {
                text.append(value)
            }
        }
        return text
    }

    /// syslog priority for journald's `<N>` line prefix (sd-daemon(3)).
    public static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A value inside quotes: quotes and backslashes escaped, and control characters, so that a value from outside
    /// (a sensor's name, a receiver's text, SQLite's report) can never start a line of its own.
    static func escaped(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out.append("\\x" + (hex.count < 2 ? "0" : "") + hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
