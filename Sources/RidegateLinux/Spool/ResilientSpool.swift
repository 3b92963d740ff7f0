import Glibc
import RidegateCore

/// The spool as `MQTTPublisher` uses it: the SQLite file when it works, and when it does not, a bounded,
/// counted fallback instead of lost readings.
///
/// - A damaged file (at open, or found later) is moved aside as `spool.sqlite.damaged-N`, what can be read is
///   salvaged into a new file with its ids and sequence numbers, and the readings that could not be read
///   are counted as dropped. Loud: an error line, `spool_recoveries` on `health`.
/// - A full disk (or any write error): readings wait in memory, the newest `memoryLimit` of them, the
///   oldest dropped and counted; one log line when this starts and one when it ends. Every `retryInterval`
///   seconds the disk is tried again and the waiting readings are moved to it, in order, with their ids.
///
/// Ids are one sequence across both (memory continues after the highest id the file ever gave), so the
/// publisher's replay order and acknowledgements never notice which one holds a reading.
/// Not thread-safe by itself: `MQTTPublisher` calls it on the event loop's thread only.
public final class ResilientSpool: ReadingStore, @unchecked Sendable {
    public let path: String
    public let maximumBytes: Int64
    public let memoryLimit: Int
    public let retryInterval: Double
    private let logger: Logger
    private let now: @Sendable () -> Double
    private var disk: SQLiteSpool?
    private var memory: [SQLiteSpool.Entry] = []
    private var memorySequences: [String: Int] = [:]
    private var highestID: Int64 = 0
    private var memoryDropped: Int64 = 0
    private var degradedSince: (reason: String, at: Double)?
    private var nextAttempt = 0.0
    /// Damaged files moved aside during this run.
    public private(set) var recoveries = 0

    public init(path: String, maximumBytes: Int64, memoryLimit: Int = 20_000, retryInterval: Double = 10, logger: Logger,
                now: @escaping @Sendable () -> Double = SystemClock.monotonicSeconds) {
        self.path = path
        self.maximumBytes = maximumBytes
        self.memoryLimit = memoryLimit
        self.retryInterval = retryInterval
        self.logger = logger
        self.now = now
        openDisk()
    }

    public var mode: String { degradedSince == nil ? "disk" : "memory" }

    // MARK: ReadingStore

    public func append(_ readings: [NewReading]) throws(SQLiteFileError) -> [Int64] {
        retryIfDue()
        if degradedSince == nil, let disk {
            do {
                let ids = try disk.append(readings)
                highestID = max(highestID, ids.last ?? 0)
                return ids
            } catch {
                // All or none: the batch goes to memory whole.
                degrade(error)
            }
        }
        return readings.map { reading in
            highestID += 1
            memory.append(SQLiteSpool.Entry(id: highestID, topic: reading.topic, payload: reading.payload, qos: reading.qos, retain: reading.retain))
            if let sequence = reading.sequence { memorySequences[reading.topic] = max(memorySequences[reading.topic] ?? 0, sequence) }
            if memory.count > memoryLimit {
                memory.removeFirst(memory.count - memoryLimit)
                memoryDropped += 1
            }
            return highestID
        }
    }

    public func append(_ readings: [NewReading], removing acknowledged: [Int64]) throws(SQLiteFileError) -> [Int64] {
        // The common case, the disk healthy and nothing held in memory: one transaction for both.
        guard degradedSince == nil, memory.isEmpty, let disk else {
            try remove(acknowledged)
            return try append(readings)
        }
        do {
            let ids = try disk.append(readings, removing: acknowledged)
            highestID = max(highestID, ids.last ?? 0)
            return ids
        } catch {
            // As `append`: the readings go to memory whole; the acknowledged ones stay on disk and may be sent
            // again after a restart (same seq).
            degrade(error)
            return try append(readings)
        }
    }

    public func remove(_ ids: [Int64]) throws(SQLiteFileError) {
        let inMemory = Set(memory.lazy.map(\.id)).intersection(ids)
        if !inMemory.isEmpty { memory.removeAll { inMemory.contains($0.id) } }
        let onDisk = ids.filter { !inMemory.contains($0) }
        guard !onDisk.isEmpty else { return }
        do {
            try disk?.remove(onDisk)
        } catch {
            // The broker has it; failing to forget it only means it may be sent again (same seq).
            degrade(error)
        }
    }

    public func pending(after afterID: Int64, limit: Int) throws(SQLiteFileError) -> [SQLiteSpool.Entry] {
        let stored = storedPending(after: afterID, limit: limit)
        let waiting = memory.lazy.filter { $0.id > afterID }.prefix(limit)
        return Array((stored + waiting).sorted { $0.id < $1.id }.prefix(limit))
    }

    /// The file's part of the backlog. A damaged page met on the way is salvaged (`degrade`) and the read is made
    /// again in the new file, so the replay goes on with what was saved rather than ending at the damage.
    private func storedPending(after afterID: Int64, limit: Int) -> [SQLiteSpool.Entry] {
        for _ in 0..<2 {
            guard let disk else { return [] }
            do {
                return try disk.pending(after: afterID, limit: limit)
            } catch {
                degrade(error)
            }
        }
        return []
    }

    public func depth() -> Int64 { (disk?.depth() ?? 0) + Int64(memory.count) }
    public func lastID() -> Int64 { max(disk?.lastID() ?? 0, memory.last?.id ?? 0) }
    public var dropped: Int64 { (disk?.dropped ?? 0) + memoryDropped }

    public func sequences() -> [String: Int] {
        (disk?.sequences() ?? [:]).merging(memorySequences) { max($0, $1) }
    }

    public func save(sequence value: Int, for topic: String) throws(SQLiteFileError) {
        memorySequences[topic] = max(memorySequences[topic] ?? 0, value)
        guard degradedSince == nil, let disk else { return }
        do {
            try disk.save(sequence: value, for: topic)
        } catch {
            degrade(error)
        }
    }

    // MARK: failure and recovery

    private func openDisk() {
        do {
            let spool = try SQLiteSpool(path: path, maximumBytes: maximumBytes)
            disk = spool
            highestID = max(highestID, try spool.highestID())
            // Ids given out while the file was away (readings in memory, some delivered since) stay given out.
            try spool.reserveIDs(through: highestID)
        } catch where error.isDamage {
            recoverDamagedFile(error)
        } catch {
            disk = nil
            degrade(error)
        }
    }

    /// Moves the damaged file aside, salvages it into a new one, counts what could not be read.
    private func recoverDamagedFile(_ damage: SQLiteFileError) {
        disk?.close()
        disk = nil
        recoveries += 1
        let aside = Self.freeName(path + ".damaged")
        _ = rename(path, aside)
        _ = rename(path + "-wal", aside + "-wal")
        _ = unlink(path + "-shm")
        let salvage = SpoolSalvage.read(path: aside)
        do {
            let fresh = try SQLiteSpool(path: path, maximumBytes: maximumBytes)
            try fresh.restore(salvage.entries, sequences: salvage.sequences, dropped: salvage.dropped + salvage.unreadable)
            disk = fresh
            highestID = max(highestID, salvage.highestID, salvage.entries.last?.id ?? 0, try fresh.highestID())
            // The damaged file's unreadable readings keep their ids: new ones follow them.
            try fresh.reserveIDs(through: highestID)
            logger.error("the spool was damaged; it was kept aside and what could be read was saved into a new one", [
                ("spool.damage", damage.message), ("spool.kept_as", aside), ("spool.salvaged", String(salvage.entries.count)),
                ("spool.unreadable", String(salvage.unreadable)),
                ("spool.sequences", salvage.sequences.isEmpty ? "lost: seq restarts at 1" : "kept"),
            ])
        } catch {
            logger.error("the spool was damaged and a new one cannot be made", [("spool.damage", damage.message), ("error", error.description)])
            disk = nil
            memory = salvage.entries + memory
            memorySequences.merge(salvage.sequences) { max($0, $1) }
            highestID = max(highestID, salvage.highestID, salvage.entries.last?.id ?? 0)
            degrade(error)
        }
    }

    private func degrade(_ error: SQLiteFileError) {
        if error.isDamage, disk != nil {
            recoverDamagedFile(error)
            return
        }
        nextAttempt = now() + retryInterval
        guard degradedSince == nil else { return }
        degradedSince = (error.isFull ? "the disk is full" : error.description, now())
        // The `seq`s given meanwhile are made durable (their rows written, synced) when the disk takes writes again; a power
        // cut before then can give one of them again, beyond what the bounds on disk already cover.
        logger.error("the spool cannot be written; readings wait in memory until it can", [
            ("spool.reason", degradedSince?.reason ?? ""), ("spool.memory_limit", String(memoryLimit)),
            ("spool.retry_s", String(Int(retryInterval))),
            ("spool.seq", "a power cut before the disk is written again may repeat a seq given meanwhile"),
        ])
    }

    /// While degraded, at most every `retryInterval`: reopen if needed, move the waiting readings to disk.
    private func retryIfDue() {
        guard let since = degradedSince, now() >= nextAttempt else { return }
        nextAttempt = now() + retryInterval
        if disk == nil { openDisk() }
        guard let disk else { return }
        do {
            try disk.restore(memory, sequences: memorySequences, dropped: memoryDropped)
            let moved = memory.count
            logger.notice("the spool can be written again", [
                ("spool.moved_from_memory", String(moved)), ("spool.dropped_meanwhile", String(memoryDropped)),
                ("spool.degraded_s", String(Int(now() - since.at))),
            ])
            memory.removeAll()
            memoryDropped = 0
            degradedSince = nil
        } catch {
            if error.isDamage { recoverDamagedFile(error) }
        }
    }

    static func freeName(_ base: String) -> String {
        var n = 1
        while access("\(base)-\(n)", F_OK) == 0 { n += 1 }
        return "\(base)-\(n)"
    }
}
