import RidegateCore

/// A reading to store: what `ReadingStore.append` takes.
public struct NewReading: Sendable, Equatable {
    public var topic: String
    public var payload: String
    public var qos: Int
    public var sequence: Int?
    /// Delivered retained (see `StoredReading.retain`).
    public var retain: Bool

    public init(topic: String, payload: String, qos: Int, sequence: Int? = nil, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.sequence = sequence
        self.retain = retain
    }
}

extension ReadingStore {
    /// Stores one reading; its id.
    public func append(topic: String, payload: String, qos: Int, sequence: Int?) throws(SQLiteFileError) -> Int64 {
        try append([NewReading(topic: topic, payload: payload, qos: qos, sequence: sequence)])[0]
    }
}

/// Where readings wait for the broker's acknowledgement: the SQLite spool on disk, or memory when there
/// is no state directory (tools, tests). Used on the event loop's thread only.
public protocol ReadingStore: AnyObject, Sendable {
    /// Stores readings in order and, in the same step, their `seq`s (see `SQLiteSpool.append`); their ids.
    func append(_ readings: [NewReading]) throws(SQLiteFileError) -> [Int64]
    /// Forgets readings the broker acknowledged (all of one turn's acknowledgements in one step).
    func remove(_ ids: [Int64]) throws(SQLiteFileError)
    /// Forgets `acknowledged` and stores `readings`, in one step where the store has transactions.
    func append(_ readings: [NewReading], removing acknowledged: [Int64]) throws(SQLiteFileError) -> [Int64]
    func pending(after afterID: Int64, limit: Int) throws(SQLiteFileError) -> [SQLiteSpool.Entry]
    func depth() -> Int64
    /// The newest reading's id (0 when empty).
    func lastID() -> Int64
    var dropped: Int64 { get }
    func sequences() -> [String: Int]
    func save(sequence value: Int, for topic: String) throws(SQLiteFileError)
    /// Where readings wait now: `disk`, or `memory` (no spool file, or it cannot be written).
    var mode: String { get }
    /// Damaged spool files moved aside during this run.
    var recoveries: Int { get }
}

extension ReadingStore {
    public func append(_ readings: [NewReading], removing acknowledged: [Int64]) throws(SQLiteFileError) -> [Int64] {
        try remove(acknowledged)
        return try append(readings)
    }
}

extension SQLiteSpool: ReadingStore {
    public var mode: String { "disk" }
    public var recoveries: Int { 0 }
}

/// A bounded in-memory store with the same drop-oldest policy.
public final class MemoryReadingStore: ReadingStore, @unchecked Sendable {
    private var entries: [SQLiteSpool.Entry] = []
    private var nextID: Int64 = 1
    private var sequence: [String: Int] = [:]
    private let limit: Int
    public private(set) var dropped: Int64 = 0

    public init(limit: Int = 100_000) {
        self.limit = limit
    }

    public func append(_ readings: [NewReading]) throws(SQLiteFileError) -> [Int64] {
        readings.map { reading in
            if let seq = reading.sequence { sequence[reading.topic] = seq }
            defer { nextID += 1 }
            entries.append(.init(id: nextID, topic: reading.topic, payload: reading.payload, qos: reading.qos))
            if entries.count > limit {
                entries.removeFirst(entries.count - limit)
                dropped += 1
            }
            return nextID
        }
    }

    public func remove(_ ids: [Int64]) throws(SQLiteFileError) {
        let gone = Set(ids)
        entries.removeAll { gone.contains($0.id) }
    }

    public func pending(after afterID: Int64, limit: Int) throws(SQLiteFileError) -> [SQLiteSpool.Entry] {
        Array(entries.lazy.filter { $0.id > afterID }.prefix(limit))
    }

    public func depth() -> Int64 { Int64(entries.count) }
    public func lastID() -> Int64 { entries.last?.id ?? 0 }
    public func sequences() -> [String: Int] { sequence }
    public func save(sequence value: Int, for topic: String) throws(SQLiteFileError) { sequence[topic] = value }
    public var mode: String { "memory" }
    public var recoveries: Int { 0 }
}
