/// One log line: `LEVEL label: message key=value …`, values quoted when they contain spaces or quotes.
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
            if value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) {
                text.append("\"")
                text.append(value.replacingAll("\"", with: "\\\""))
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
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self {
            if character == target { out.append(replacement) } else { out.append(character) }
        }
        return out
    }
}
