import CSQLite
import Glibc
import RidegateCore

/// The store-and-forward spool: every reading is written here before it is published and deleted only
/// when the broker has acknowledged it (QoS 1 PUBACK), so neither a broker outage nor a SIGKILL nor a
/// reboot loses one. SQLite through its C API, in WAL mode with synchronous=NORMAL: each insert is one
/// write(2) to the log, so a killed process loses nothing the OS was asked to write; a commit every 5 s is
/// synced and the `seq` rows lead what was published (`SpoolDurability`), so a power cut loses at most the last
/// 5 s of unacknowledged readings and never makes a `seq` be given twice (docs/mqtt.md).
///
/// Not thread-safe by itself: `MQTTPublisher` calls it on the event loop's thread only.
public final class SQLiteSpool: @unchecked Sendable {
    /// A stored reading (the core's type: delivery decides on it).
    public typealias Entry = StoredReading

    public let path: String
    private var db: OpaquePointer?
    /// The statements every reading runs, prepared once (nil once the file is closed).
    private var insert: SQLiteStatement?
    private var delete: SQLiteStatement?
    private var saveSequence: SQLiteStatement?
    private var saveBound: SQLiteStatement?
    /// BEGIN IMMEDIATE and COMMIT, prepared once: every loop turn that publishes or is acknowledged runs a
    /// transaction, and parsing their SQL each time was a visible part of the 10 Hz GPS profile.
    private var begin: SQLiteStatement?
    private var commit: SQLiteStatement?
    public let maximumBytes: Int64
    /// Readings dropped (oldest first) because the spool was full.
    public private(set) var dropped: Int64 = 0
    private var insertsSinceSizeCheck = 0
    private var removalsSinceLowWater = 0
    /// The id the next reading gets: above every id this file ever gave out, delivered ones included.
    private var nextID: Int64 = 1
    private var durability = SpoolDurability(stored: [:])

    /// The `sequence` row that keeps the highest id given out (no topic is empty). It shares its page with
    /// the topics' `seq` rows, which a reading's transaction writes anyway: AUTOINCREMENT kept the same number
    /// in `sqlite_sequence`, a page of its own, a third of every transaction's writes to the SD card.
    static let highestIDRow = ""

    /// Ids above this are a damaged record, not readings (at 1 000 readings a second it is 146 million years
    /// away): below it, adding a reading's id can never overflow.
    static let idCeiling: Int64 = 1 << 62

    /// The schema version this build writes.
    public static var schemaVersion: Int { SpoolSchema.steps.count }

    public init(path: String, maximumBytes: Int64 = 200 * 1024 * 1024) throws(SQLiteFileError) {
        self.path = path
        self.maximumBytes = maximumBytes
        SQLiteCalls.makePrivate(path)
        let handle = try SQLiteCalls.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        db = handle
        // Each reading's transaction rewrites two pages in the WAL (the spool's leaf and the `sequence` rows):
        // at SQLite's default 4 KiB pages, about 290 MB an hour at 10 Hz; 1 KiB pages make it a quarter.
        // The file is this connection's alone (exclusive locking): no busy timeout, since the only other
        // holder can be another process that keeps it as long as it runs.
        do {
            try SQLiteCalls.configureWritable(handle, path: path, exclusive: true)
        } catch where error.code & 0xFF == SQLITE_BUSY {
            throw SQLiteFileError(path: path, operation: "open",
                             message: "another process has it open (another ridegate with the same state_directory?)", code: error.code)
        }
        _ = try SQLiteSchema.migrate(handle, path: path, steps: SpoolSchema.steps, current: SpoolSchema.current)
        try SQLiteCalls.quickCheck(handle, path: path)
        insert = try prepare("INSERT INTO spool (id, topic, payload, qos, retain) VALUES (?1, ?2, ?3, ?4, ?5)")
        delete = try prepare("DELETE FROM spool WHERE id = ?1")
        saveSequence = try prepare("INSERT INTO sequence (topic, value) VALUES (?1, ?2) ON CONFLICT(topic) DO UPDATE SET value = excluded.value")
        begin = try prepare("BEGIN IMMEDIATE")
        commit = try prepare("COMMIT")
        // A count no run could have reached is a damaged record: start again from 0 rather than overflow.
        dropped = (try? scalar("SELECT value FROM counters WHERE name = 'dropped'")).flatMap { (0...Self.idCeiling).contains($0) ? $0 : nil } ?? 0
        nextID = try storedHighestID() + 1
        try execute("INSERT OR IGNORE INTO counters (name, value) VALUES ('low_water', \(try lowWater()))")
        saveBound = try prepare("INSERT INTO sequence_bound (topic, value) VALUES (?1, ?2) ON CONFLICT(topic) DO UPDATE SET value = excluded.value")
        try beginRun()
    }

    /// This run marked as begun. If the last run neither ended in order nor in this boot, the power went with the
    /// file open and the broker may hold `seq`s above the rows: every topic's row is raised to its bound, in this
    /// synced commit, before anything is published. So the rows never again lag what was given — not when this run
    /// publishes a topic, nor when it stops in order without publishing one (a strap left at home, `lap`).
    private func beginRun() throws(SQLiteFileError) {
        let boot = SpoolDurability.bootNumber()
        let clean = try scalar("SELECT coalesce((SELECT value FROM counters WHERE name = 'clean'), 1)")
        let lastBoot = try scalar("SELECT coalesce((SELECT value FROM counters WHERE name = 'boot'), 0)")
        let exact = clean == 1 || (boot != 0 && boot == lastBoot)
        try transaction(synced: !exact) { () throws(SQLiteFileError) in
            if !exact { try execute(Self.raiseSequencesToBounds) }
            try execute("INSERT INTO counters (name, value) VALUES ('boot', \(boot)), ('clean', 0) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
        }
        durability = SpoolDurability(stored: try rows("sequence_bound"))
    }

    static let raiseSequencesToBounds = """
        INSERT INTO sequence (topic, value) SELECT topic, value FROM sequence_bound WHERE topic <> '\(highestIDRow)'
        ON CONFLICT(topic) DO UPDATE SET value = max(value, excluded.value)
        """

    /// The oldest reading not yet delivered (or the next id, when none waits): below it every reading was
    /// acknowledged. Saved every hundred deliveries, so a salvage of a damaged file knows which missing ids
    /// were lost rather than delivered (at worst a hundred delivered ones are counted as lost, never the reverse).
    private func lowWater() throws(SQLiteFileError) -> Int64 {
        try scalar("SELECT coalesce((SELECT min(id) FROM spool), \(try highestID()) + 1)")
    }

    deinit {
        close()
    }

    /// Closes the file (further calls fail as "closed"); what a damaged spool needs before it is moved aside.
    /// Marked closed in order first, synced, so the next start continues from the last `seq`s given; if that
    /// cannot be written (a damaged or full file), the next start takes the bounds: a gap, never a `seq` twice.
    public func close() {
        if insert != nil {
            do {
                try transaction(synced: true) { () throws(SQLiteFileError) in try execute("UPDATE counters SET value = 1 WHERE name = 'clean'") }
            } catch {}
        }
        for statement in [insert, delete, saveSequence, saveBound, begin, commit] { statement?.finalize() }
        (insert, delete, saveSequence, saveBound, begin, commit) = (nil, nil, nil, nil, nil, nil)
        sqlite3_close(db)
        db = nil
    }

    /// Stores readings that already have ids (kept in memory while the disk could not be written, or
    /// salvaged from a damaged file), with their sequence numbers, in one transaction.
    public func restore(_ entries: [Entry], sequences: [String: Int], dropped lost: Int64 = 0) throws(SQLiteFileError) {
        for entry in entries { try checkPlausible(entry.id, "a reading's id") }
        let highest = max(nextID - 1, entries.lazy.map(\.id).max() ?? 0)
        let stored = self.sequences()
        try transaction(synced: true) { () throws(SQLiteFileError) in
            for entry in entries {
                try insert(entry.id, entry.topic, entry.payload, qos: entry.qos, retain: entry.retain, operation: "restore")
            }
            for (topic, value) in sequences where value > (stored[topic] ?? 0) { try writeSequence(value, for: topic) }
            if highest >= nextID { try saveHighestID(highest) }
            if lost > 0 {
                try execute("INSERT INTO counters (name, value) VALUES ('dropped', \(dropped + lost)) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
            }
        }
        dropped += lost
        nextID = highest + 1
    }

    /// Makes the next id follow `id` at least: ids given out before this file (the readings of a damaged
    /// one that could not be salvaged) are never given out again, or a replay cursor past them would skip
    /// the new readings.
    public func reserveIDs(through id: Int64) throws(SQLiteFileError) {
        try checkPlausible(id, "an id to reserve")
        guard id >= nextID else { return }
        try saveHighestID(id)
        nextID = id + 1
    }

    /// The highest id ever given out, including readings already delivered and deleted: the next reading's
    /// id must be above it, or a replay cursor that passed it would skip the reading.
    public func highestID() throws(SQLiteFileError) -> Int64 {
        guard db != nil else { throw SQLiteFileError(path: path, operation: "highest id", message: "closed") }
        return nextID - 1
    }

    /// The file's own record of it, read at open; an implausible one is damage (the file is then kept aside
    /// and salvaged), never a number to count on from.
    private func storedHighestID() throws(SQLiteFileError) -> Int64 {
        let highest = try scalar("SELECT max(coalesce((SELECT value FROM sequence WHERE topic = '\(Self.highestIDRow)'), 0), coalesce((SELECT max(id) FROM spool), 0))")
        try checkPlausible(highest, "its highest reading id")
        return highest
    }

    private func checkPlausible(_ id: Int64, _ what: String) throws(SQLiteFileError) {
        guard id >= 0, id <= Self.idCeiling else {
            throw SQLiteFileError(path: path, operation: "open", message: "\(what) (\(id)) is not one ridegate gave out", code: SQLITE_CORRUPT)
        }
    }

    /// Stores a reading, and with it its `seq` when it has one; returns its id (the order of replay).
    ///
    /// The reading and its sequence number go in one transaction: a kill between two separate commits could
    /// keep a reading whose `seq` was not saved, and the restarted gateway would number the next one the same.
    @discardableResult
    public func append(topic: String, payload: String, qos: Int, sequence: Int? = nil) throws(SQLiteFileError) -> Int64 {
        try append([NewReading(topic: topic, payload: payload, qos: qos, sequence: sequence)])[0]
    }

    /// Stores readings in order, with their `seq`s, in one transaction (one journal commit for a turn's
    /// readings, not one each: the SD card's wear and the Pi's time); returns their ids. All or none.
    public func append(_ readings: [NewReading]) throws(SQLiteFileError) -> [Int64] {
        try append(readings, removing: [])
    }

    /// Forgets readings the broker acknowledged and stores new ones in the same transaction: at a steady
    /// rate the last turn's acknowledgements ride along with this turn's readings, one journal commit for
    /// both. All or none.
    public func append(_ readings: [NewReading], removing acknowledged: [Int64]) throws(SQLiteFileError) -> [Int64] {
        guard insert != nil else { throw SQLiteFileError(path: path, operation: "insert", message: "closed") }
        guard !readings.isEmpty || !acknowledged.isEmpty else { return [] }
        let plan = durability.plan(readings.compactMap { r in r.sequence.map { (r.topic, $0) } }, at: SystemClock.monotonicSeconds())
        var ids: [Int64] = []
        ids.reserveCapacity(readings.count)
        try transaction(synced: plan.synced) { () throws(SQLiteFileError) in
            try delete(acknowledged)
            var id = nextID
            for reading in readings {
                try insert(id, reading.topic, reading.payload, qos: reading.qos, retain: reading.retain, operation: "insert")
                ids.append(id)
                id += 1
            }
            for reading in readings { if let sequence = reading.sequence { try writeSequence(sequence, for: reading.topic) } }
            for row in plan.rows where row.topic != Self.highestIDRow { try write(row.bound, for: row.topic, with: saveBound) }
            if let last = ids.last { try saveHighestID(last) }
        }
        durability = plan.next
        if let last = ids.last { nextID = last + 1 }
        insertsSinceSizeCheck += readings.count
        // Three PRAGMAs every hundred readings: cheap, and the bound is never overshot by much.
        if insertsSinceSizeCheck >= 100 {
            insertsSinceSizeCheck = 0
            try enforceLimit()
        }
        return ids
    }

    /// The broker has these readings: forget them, in one transaction (one journal commit, not one each).
    public func remove(_ ids: [Int64]) throws(SQLiteFileError) {
        guard !ids.isEmpty else { return }
        let plan = durability.plan([], at: SystemClock.monotonicSeconds())
        try transaction(synced: plan.synced) { () throws(SQLiteFileError) in try delete(ids) }
        durability = plan.next
    }

    /// Inside a transaction: deletes acknowledged readings, and every hundred saves the low-water mark.
    private func delete(_ ids: [Int64]) throws(SQLiteFileError) {
        guard !ids.isEmpty else { return }
        guard let delete else { throw SQLiteFileError(path: path, operation: "delete", message: "closed") }
        for id in ids {
            delete.reset()
            delete.bind(1, id)
            try delete.run("delete")
        }
        removalsSinceLowWater += ids.count
        if removalsSinceLowWater >= 100 {
            removalsSinceLowWater = 0
            try execute("UPDATE counters SET value = \(try lowWater()) WHERE name = 'low_water'")
        }
    }

    /// Readings waiting, oldest first, after `afterID`. A page found damaged on the way is an error, never the
    /// end of the backlog: the replay would take the readings behind it for delivered.
    public func pending(after afterID: Int64 = 0, limit: Int = 500) throws(SQLiteFileError) -> [Entry] {
        let statement = try prepare("SELECT id, topic, payload, qos, retain FROM spool WHERE id > ?1 ORDER BY id LIMIT ?2")
        defer { statement.finalize() }
        statement.bind(1, afterID)
        statement.bind(2, Int64(limit))
        var entries: [Entry] = []
        while try statement.nextRow("read the backlog") {
            entries.append(Entry(id: statement.int64(0), topic: statement.text(1), payload: statement.text(2),
                                 qos: Int(statement.int64(3)), retain: statement.int64(4) != 0))
        }
        return entries
    }

    public func depth() -> Int64 { (try? scalar("SELECT count(*) FROM spool")) ?? 0 }

    /// Readings waiting; an error when the file cannot be read (never "empty").
    public func checkedDepth() throws(SQLiteFileError) -> Int64 { try scalar("SELECT count(*) FROM spool") }

    public func lastID() -> Int64 { (try? scalar("SELECT coalesce(max(id), 0) FROM spool")) ?? 0 }

    // MARK: sequence numbers, persisted so `seq` keeps counting across restarts

    /// What a start continues each topic's `seq` from: the last given, or after a power cut the bound above it
    /// (`beginRun` raised the rows; read from a file that passed its check at open, a read failing then starts from none).
    public func sequences() -> [String: Int] {
        do {
            return try rows("sequence")
        } catch {
            return [:]
        }
    }

    private func rows(_ table: String) throws(SQLiteFileError) -> [String: Int] {
        let statement = try prepare("SELECT topic, value FROM \(table) WHERE topic <> '\(Self.highestIDRow)'")
        defer { statement.finalize() }
        var result: [String: Int] = [:]
        while try statement.nextRow("read \(table)") {
            result[statement.text(0)] = Int(statement.int64(1))
        }
        return result
    }

    /// A `seq` given to a reading that is not spooled (retained state, QoS 0): its row raised, synced, when it
    /// reaches its bound (`SpoolDurability`).
    public func save(sequence value: Int, for topic: String) throws(SQLiteFileError) {
        guard topic != Self.highestIDRow else { return }
        let plan = durability.plan([(topic, value)], at: SystemClock.monotonicSeconds())
        try transaction(synced: plan.synced) { () throws(SQLiteFileError) in
            try writeSequence(value, for: topic)
            for row in plan.rows { try write(row.bound, for: row.topic, with: saveBound) }
        }
        durability = plan.next
    }

    private func writeSequence(_ value: Int, for topic: String) throws(SQLiteFileError) {
        guard topic != Self.highestIDRow else { return }
        try write(value, for: topic, with: saveSequence)
    }

    private func write(_ value: Int, for topic: String, with statement: SQLiteStatement?) throws(SQLiteFileError) {
        guard let statement else { throw SQLiteFileError(path: path, operation: "save sequence", message: "closed") }
        statement.reset()
        statement.bind(1, topic)
        statement.bind(2, Int64(value))
        try statement.run("save sequence")
    }

    private func saveHighestID(_ id: Int64) throws(SQLiteFileError) {
        try write(Int(id), for: Self.highestIDRow, with: saveSequence)
    }

    /// Inside a transaction: one reading, under the id given.
    private func insert(_ id: Int64, _ topic: String, _ payload: String, qos: Int, retain: Bool, operation: String) throws(SQLiteFileError) {
        guard let insert else { throw SQLiteFileError(path: path, operation: operation, message: "closed") }
        insert.reset()
        insert.bind(1, id)
        insert.bind(2, topic)
        insert.bind(3, payload)
        insert.bind(4, Int64(qos))
        insert.bind(5, retain)
        try insert.run(operation)
    }

    // MARK: size limit: drop oldest, count it

    private func enforceLimit() throws(SQLiteFileError) {
        let pageSize = (try? scalar("PRAGMA page_size")) ?? 4096
        let pages = (try? scalar("PRAGMA page_count")) ?? 0
        let free = (try? scalar("PRAGMA freelist_count")) ?? 0
        let used = (pages - free) * pageSize
        guard used > maximumBytes, used > 0 else { return }
        let count = depth()
        guard count > 0 else { return }
        // Down to 90 % of the bound, and a tenth at least, so this work stays rare; oldest first.
        let keep = Int64(Double(count) * 0.9 * Double(maximumBytes) / Double(used))
        let drop = max(1, count / 10, count - keep)
        try execute("DELETE FROM spool WHERE id IN (SELECT id FROM spool ORDER BY id LIMIT \(drop))")
        dropped += drop
        try execute("INSERT INTO counters (name, value) VALUES ('dropped', \(dropped)) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
    }

    // MARK: C API helpers (shared with the other SQLite file: SQLiteCalls)

    /// One transaction, all or none; `synced`: its commit reaches the disk before it returns (SQLite takes the
    /// setting only outside a transaction).
    private func transaction(synced: Bool, _ body: () throws(SQLiteFileError) -> Void) throws(SQLiteFileError) {
        if synced { try execute("PRAGMA synchronous=FULL") }
        defer { if synced { _ = sqlite3_exec(db, "PRAGMA synchronous=NORMAL", nil, nil, nil) } }
        try step(begin, "begin")
        do throws(SQLiteFileError) {
            try body()
            try step(commit, "commit")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    private func step(_ statement: SQLiteStatement?, _ operation: String) throws(SQLiteFileError) {
        guard let statement else { throw SQLiteFileError(path: path, operation: operation, message: "closed") }
        defer { statement.reset() }
        try statement.run(operation)
    }

    /// What the spool's page cache holds now, in bytes: bounded however large the file grows.
    public var pageCacheBytes: Int { SQLiteCalls.pageCacheBytes(db) }

    private func execute(_ sql: String) throws(SQLiteFileError) { try SQLiteCalls.execute(db, sql, path: path) }
    private func prepare(_ sql: String) throws(SQLiteFileError) -> SQLiteStatement { try SQLiteStatement(db, sql, path: path) }
    private func scalar(_ sql: String) throws(SQLiteFileError) -> Int64 { try SQLiteCalls.scalar(db, sql, path: path) }
}
