import Foundation
import RidegateCore

/// Keeps log lines for assertions.
public final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var captured: [String] = []

    public init() {}

    public func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
        lock.lock()
        captured.append(LogLineFormat.line(level: level, label: label, message: message, metadata: metadata))
        lock.unlock()
    }

    public var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return captured
    }

    public func logger(_ label: String = "test", level: Logger.Level = .trace) -> Logger {
        Logger(label: label, level: level, handler: self)
    }
}
