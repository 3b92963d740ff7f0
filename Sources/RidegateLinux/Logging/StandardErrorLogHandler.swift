import Glibc
import RidegateCore

/// Writes one line per message to stderr, in a single write(2) so lines from threads never interleave.
/// Under systemd (JOURNAL_STREAM set) each line starts with `<N>`, the syslog priority journald reads;
/// on a terminal the level is coloured; anywhere else the text is plain.
public struct StandardErrorLogHandler: LogHandler {
    public enum Style: Sendable { case plain, journal, terminal }

    public let style: Style

    public init(style: Style) { self.style = style }

    /// Picks the style from the environment and whether stderr is a terminal.
    public static func detect() -> StandardErrorLogHandler {
        if getenv("JOURNAL_STREAM") != nil { return StandardErrorLogHandler(style: .journal) }
        if isatty(2) == 1, getenv("NO_COLOR") == nil { return StandardErrorLogHandler(style: .terminal) }
        return StandardErrorLogHandler(style: .plain)
    }

    public func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
        var line = LogLineFormat.line(level: level, label: label, message: message, metadata: metadata)
        switch style {
        case .plain:
            break
        case .journal:
            line = "<\(LogLineFormat.syslogPriority(level))>" + line
        case .terminal:
            let colour: String
            switch level {
            case .trace, .debug: colour = "\u{1B}[2m"
            case .info, .notice: colour = "\u{1B}[0m"
            case .warning: colour = "\u{1B}[33m"
            case .error, .critical: colour = "\u{1B}[31m"
            }
            line = colour + line + "\u{1B}[0m"
        }
        line.append("\n")
        try? FileDescriptor(rawValue: 2).writeAll(Array(line.utf8))
    }
}
