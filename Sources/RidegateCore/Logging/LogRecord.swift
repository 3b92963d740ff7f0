/// A log line the pure core asks for (it holds no logger): the level, the fixed message, the metadata.
public struct LogRecord: Sendable, Equatable {
    public var level: Logger.Level
    public var message: String
    public var keys: [String]
    public var values: [String]

    public init(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata = []) {
        self.level = level
        self.message = message
        keys = metadata.map(\.0)
        values = metadata.map(\.1)
    }

    public var metadata: Logger.Metadata { Array(zip(keys, values)) }
}
