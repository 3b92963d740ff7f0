/// When the spool's commits must reach the disk, and the `seq` each topic keeps on it.
///
/// The spool commits every turn that publishes or is acknowledged, in WAL mode with `synchronous=NORMAL`:
/// durable against a crash, but a power cut — how a bike's ride ends — can roll back what the disk was not made
/// to keep. An fsync per turn would cost the SD card and the loop a flush ten times a second at 10 Hz. So:
/// - the first commit `interval` seconds after the last synced one is synced (its WAL fsynced): a cut loses at
///   most that long of readings the broker had not acknowledged;
/// - a topic's `seq` row holds a bound `lead` past the last `seq` given, raised in a synced commit when a `seq`
///   reaches it, before the reading is published. A restart after a cut continues above every `seq` the broker
///   may have got: a gap of at most `lead`, never a `seq` given twice to another reading. The `seq` rows themselves
///   are what a start after a crash in the same boot or an orderly close (`SQLiteSpool`) continues from, without a gap.
struct SpoolDurability: Sendable {
    static let interval = 5.0
    static let lead = 100

    /// What each topic's row holds: no `seq` above it has been given.
    private var bounds: [String: Int]
    private var lastSync: Double?

    init(stored: [String: Int]) {
        bounds = stored
    }

    struct Plan {
        /// Rows to write in the commit: topics whose bound is raised.
        var rows: [(topic: String, bound: Int)]
        var synced: Bool
        /// The state once the commit has succeeded.
        var next: SpoolDurability
    }

    /// What a commit at `now` that gives `sequences` must write, and whether it must be synced. (The state is copied,
    /// but its dictionary only where a bound is raised: every hundred readings of a topic, not every turn.)
    func plan(_ sequences: [(topic: String, value: Int)], at now: Double) -> Plan {
        var next = self
        var rows: [(topic: String, bound: Int)] = []
        for (topic, value) in sequences {
            guard value >= (next.bounds[topic] ?? 0) else { continue }
            let bound = value + Self.lead
            next.bounds[topic] = bound
            rows.append((topic, bound))
        }
        let synced = !rows.isEmpty || lastSync.map { now - $0 >= Self.interval } ?? true
        if synced { next.lastSync = now }
        return Plan(rows: rows, synced: synced, next: next)
    }
}

extension SpoolDurability {
    /// This boot, as a number (the first 16 hex digits of the kernel's boot id); 0 where it cannot be read. A run
    /// that ended in this boot lost nothing to a power cut: the kernel kept what it was given.
    static func bootNumber() -> Int64 {
        guard let bytes = try? TextFile.readBytes("/proc/sys/kernel/random/boot_id", limit: 64) else { return 0 }
        let hex = String(decoding: bytes, as: UTF8.self).filter(\.isHexDigit).prefix(16)
        return UInt64(hex, radix: 16).map { Int64(bitPattern: $0) } ?? 0
    }
}
