import CSQLite
import Glibc
import RidegateCore

/// What can still be read from a damaged spool, read-only: its readings in id order (hopping over unreadable
/// pages where the tree still leads past them), its sequence numbers (the highest of its `seq` rows, their bounds
/// and the readings' own `"seq"`), and its count of dropped readings.
public struct SpoolSalvage: Sendable {
    public var entries: [SQLiteSpool.Entry] = []
    public var sequences: [String: Int] = [:]
    public var dropped: Int64 = 0
    /// The highest id the file had given out, when its record could be read (`SQLiteSpool.highestIDRow`, or
    /// `sqlite_sequence` in a file of schema 1).
    public var highestID: Int64 = 0
    /// The oldest undelivered id the file last recorded (`SQLiteSpool`'s low-water mark), when readable.
    public var lowWater: Int64?
    /// Readings lost: ids from the low-water mark (or the first salvaged reading) to the highest given out that
    /// could not be read. Delivered readings were deleted and are not counted; between two low-water saves a
    /// few delivered ones may be counted as lost (an overcount, never an undercount).
    public var unreadable: Int64 {
        guard let first = lowWater ?? entries.first?.id else { return 0 }
        let last = max(highestID, entries.last?.id ?? 0)
        let salvaged = Int64(entries.lazy.filter { $0.id >= first }.count)
        return max(0, last - first + 1 - salvaged)
    }

    public static func read(path: String) -> SpoolSalvage {
        var salvage = SpoolSalvage()
        let db: OpaquePointer
        do {
            db = try SQLiteCalls.open(path, flags: SQLITE_OPEN_READONLY)
        } catch {
            return salvage // a file SQLite cannot open at all has nothing to give
        }
        defer { sqlite3_close(db) }
        // A damaged record of it is no record: the readings' own ids and the low-water mark still count the loss.
        salvage.highestID = plausible(max(scalar(db, "SELECT value FROM sequence WHERE topic = '\(SQLiteSpool.highestIDRow)'") ?? 0,
                                          scalar(db, "SELECT seq FROM sqlite_sequence WHERE name = 'spool'") ?? 0)) ?? 0
        // Counters outside anything ridegate could have written are damage too: left out, not added up.
        salvage.dropped = scalar(db, "SELECT value FROM counters WHERE name = 'dropped'").flatMap(plausible) ?? 0
        salvage.lowWater = scalar(db, "SELECT value FROM counters WHERE name = 'low_water'").flatMap(plausible)
        salvage.entries = readings(db, upTo: salvage.highestID)
        // Whether the damaged file was closed in order cannot be trusted: each topic continues above its bound too
        // (a gap of at most `SpoolDurability.lead`, never a `seq` the broker may already have).
        for table in ["sequence", "sequence_bound"] {
            rows(db, "SELECT topic, value FROM \(table) WHERE topic <> '\(SQLiteSpool.highestIDRow)'") { statement in
                let topic = text(statement, 0)
                salvage.sequences[topic] = max(salvage.sequences[topic] ?? 0, Int(sqlite3_column_int64(statement, 1)))
            }
        }
        // The readings carry their own seq: they cover for a sequence table that could not be read.
        for entry in salvage.entries {
            if let seq = sequenceNumber(in: entry.payload), seq > (salvage.sequences[entry.topic] ?? 0) { salvage.sequences[entry.topic] = seq }
        }
        return salvage
    }

    /// Readings in id order, past unreadable pages (`DamagedTableScan`); an id outside what was ever given out is a
    /// damaged key, not a reading, and nothing after it is read.
    private static func readings(_ db: OpaquePointer, upTo highest: Int64) -> [SQLiteSpool.Entry] {
        // A spool from before schema 3 has no retain column: its readings were all plain.
        var probe: OpaquePointer?
        let retain = sqlite3_prepare_v2(db, "SELECT retain FROM spool LIMIT 0", -1, &probe, nil) == SQLITE_OK ? "retain" : "0"
        sqlite3_finalize(probe)
        var entries: [SQLiteSpool.Entry] = []
        let select = "SELECT id, topic, payload, qos, \(retain) FROM spool WHERE id > ?1 ORDER BY id"
        DamagedTableScan.scan(db, select, after: 0, restarts: 64, highest: highest) { statement, id in
            guard id <= SQLiteSpool.idCeiling else { return false }
            entries.append(SQLiteSpool.Entry(id: id, topic: text(statement, 1), payload: text(statement, 2),
                                             qos: Int(sqlite3_column_int(statement, 3)), retain: sqlite3_column_int(statement, 4) != 0))
            return true
        }
        return entries
    }

    private static func plausible(_ value: Int64) -> Int64? { value >= 0 && value <= SQLiteSpool.idCeiling ? value : nil }

    static func sequenceNumber(in payload: String) -> Int? {
        guard let range = payload.utf8.firstRange(of: Array("\"seq\":".utf8)) else { return nil }
        let digits = payload.utf8[range.upperBound...].prefix { $0 >= 0x30 && $0 <= 0x39 }
        return digits.count > 0 && digits.count < 19 ? Int(String(decoding: digits, as: UTF8.self)) : nil
    }

    private static func scalar(_ db: OpaquePointer, _ sql: String) -> Int64? {
        var value: Int64?
        rows(db, sql) { value = sqlite3_column_int64($0, 0) }
        return value
    }

    private static func rows(_ db: OpaquePointer, _ sql: String, _ each: (OpaquePointer) -> Void) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW { each(statement) }
    }

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String { SQLiteCalls.text(statement, column) }
}
