/// A value-type logger shaped like swift-log's (which needs a newer Swift than the Pi's 6.0.3): a label
/// naming the subsystem, seven levels, metadata with dotted keys, and a handler handed in by whoever wires
/// the program. Messages are fixed strings; what varies goes in metadata, so logs stay greppable.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var name: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }
    }

    public typealias Metadata = [(String, String)]

    public let label: String
    public var level: Level
    public var metadata: Metadata
    private let handler: any LogHandler

    public init(label: String, level: Level = .info, handler: any LogHandler) {
        self.label = label
        self.level = level
        self.metadata = []
        self.handler = handler
    }

    /// The same handler and level for another subsystem.
    public func labeled(_ label: String) -> Logger {
        var logger = Logger(label: label, level: level, handler: handler)
        logger.metadata = metadata
        return logger
    }

    @inlinable
    public func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) {
        guard level >= self.level else { return }
        emit(level, message(), self.metadata + metadata())
    }

    @usableFromInline
    func emit(_ level: Level, _ message: String, _ metadata: Metadata) {
        handler.log(level: level, label: label, message: message, metadata: metadata)
    }

    public func trace(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) { log(.trace, message(), metadata()) }
    public func debug(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) { log(.debug, message(), metadata()) }
    public func info(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) { log(.info, message(), metadata()) }
    public func notice(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) { log(.notice, message(), metadata()) }
    public func warning(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) { log(.warning, message(), metadata()) }
    public func error(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) { log(.error, message(), metadata()) }
    public func critical(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Metadata = []) { log(.critical, message(), metadata()) }
}

/// Where log lines go. Implementations must be safe to call from any thread.
public protocol LogHandler: Sendable {
    func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata)
}

/// Discards everything: for tools whose output is their result.
public struct SilentLogHandler: LogHandler {
    public init() {}
    public func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {}
}
