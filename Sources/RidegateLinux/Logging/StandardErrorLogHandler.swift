import Glibc
import RidegateCore

/// Writes one line per message to stderr, in a single write(2) so lines from threads never interleave.
/// Under systemd (JOURNAL_STREAM set) each line starts with `<N>`, the syslog priority journald reads;
/// on a terminal the level is coloured; anywhere else the text is plain.
public struct StandardErrorLogHandler: LogHandler {
    public enum Style: Sendable { case plain, journal, terminal }

    public let style: Style
    private let output: LogOutput

    public init(style: Style) {
        self.init(style: style, descriptor: 2)
    }

    /// Lines to `descriptor` instead of stderr (tests).
    public init(style: Style, descriptor: Int32) {
        self.style = style
        output = LogOutput(descriptor: descriptor)
    }

    /// Picks the style from the environment and whether stderr is a terminal.
    public static func detect() -> StandardErrorLogHandler {
        if getenv("JOURNAL_STREAM") != nil { return StandardErrorLogHandler(style: .journal) }
        if isatty(2) == 1, getenv("NO_COLOR") == nil { return StandardErrorLogHandler(style: .terminal) }
        return StandardErrorLogHandler(style: .plain)
    }

    public func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
        output.write(format(level: level, label: label, message: message, metadata: metadata)) { dropped in
            format(level: .warning, label: "log", message: "log lines dropped: the reader of stderr (the journal) was not reading",
                   metadata: [("log.dropped", String(dropped))])
        }
    }

    private func format(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> [UInt8] {
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
        return Array(line.utf8)
    }
}

/// Where the lines go. A socket (journald's stream under systemd) is written without waiting: a journal that
/// stops reading (journald stalled on a slow SD card) must not stop the daemon's loop with it. Lines it cannot
/// take are counted and said once it reads again. A terminal, pipe or file is written as before, waiting:
/// O_NONBLOCK would change the descriptor for everyone who shares it, and those have no per-call flag.
private final class LogOutput: Sendable {
    private let descriptor: Int32
    private let isSocket: Bool
    /// Lines the socket could not take since the last one it did; also what keeps lines whole and in order.
    private let dropped = Locked(0)

    init(descriptor: Int32) {
        self.descriptor = descriptor
        var info = stat()
        isSocket = fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    func write(_ line: [UInt8], notice: (Int) -> [UInt8]) {
        guard isSocket else {
            try? FileDescriptor(rawValue: descriptor).writeAll(line) // nowhere to report a failed log write
            return
        }
        dropped.withLock { count in
            if count > 0 {
                guard send(notice(count)) else {
                    count += 1
                    return
                }
                count = 0
            }
            if !send(line) { count += 1 }
        }
    }

    /// The line, or false: when the socket is full at the start nothing is sent; when it takes only part, the
    /// rest gets a second to go (so a line is not cut whenever the buffer fills mid-line). A journal that takes
    /// nothing for that second gets the line cut; it is counted as dropped like the rest.
    private func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            if offset > 0 {
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                guard poll(&ready, 1, 1000) > 0 else { return false }
            }
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}
