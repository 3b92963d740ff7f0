import CSQLite
import Glibc
import RidegateCore

/// The ride log as the gateway keeps it open, treated like the spool: its integrity checked when it opens
/// (`PRAGMA quick_check`), a damaged file (at open, or found while reading or writing) set aside as
/// `rides.sqlite.damaged-N` and what can be read saved into a new one (`RideLogSalvage`); a file that cannot be
/// opened (busy: another process holds its lock; a read-only or missing directory) tried again with backoff, 5 s
/// doubling to a minute, while the caller keeps its entries in memory. Not thread-safe: one worker uses it.
public final class RideLogFile: @unchecked Sendable {
    public let path: String
    public let newRideAfter: Double
    public let context: RideStatistics.Context
    public let uploadServices: [UploadService]
    private let now: @Sendable () -> Double
    public private(set) var store: SQLiteRideStore?
    private var nextAttempt = 0.0
    private var backoff = RideLogFile.firstBackoff
    /// Damaged files set aside during this run.
    public private(set) var recoveries = 0
    /// Why the file is not open now (nil while it is).
    public private(set) var lastFailure: SQLiteFileError?

    static let firstBackoff = 5.0
    static let longestBackoff = 60.0

    /// What opening found, for the caller to say.
    public enum Opened: Sendable {
        /// The file was fine (or new).
        case opened
        /// It was damaged: set aside at `aside`, what could be read saved into the new one.
        case recovered(damage: SQLiteFileError, aside: String, salvage: RideLogSalvage)
    }

    public init(path: String, newRideAfter: Double, context: RideStatistics.Context, uploadServices: [UploadService] = [],
                now: @escaping @Sendable () -> Double = SystemClock.monotonicSeconds) {
        self.path = path
        self.newRideAfter = newRideAfter
        self.context = context
        self.uploadServices = uploadServices
        self.now = now
    }

    /// The open store, opening it first when it is not and an attempt is due (or `now`: the last chance, at a
    /// stop); nil while it cannot be (then `lastFailure` says why; the error is thrown only on the attempt that
    /// found it).
    public func open(now force: Bool = false) throws(SQLiteFileError) -> (store: SQLiteRideStore, opened: Opened?)? {
        if let store { return (store, nil) }
        guard force || now() >= nextAttempt else { return nil }
        do {
            let opened = try openChecked()
            lastFailure = nil
            backoff = Self.firstBackoff
            guard let store else { return nil }
            return (store, opened)
        } catch {
            lastFailure = error
            nextAttempt = now() + backoff
            backoff = min(Self.longestBackoff, backoff * 2)
            throw error
        }
    }

    /// Closes the store at an orderly stop: SQLite, closing its last connection, moves the WAL into the file and
    /// removes it, so the file alone holds the ride (a reader that cannot use the WAL — a read-only copy, another
    /// user — sees all of it). Left to the process's end, the close did not always come.
    public func close() {
        store = nil
    }

    /// The store found damage while reading or writing: close it; the next `open` sets the file aside and
    /// salvages it.
    public func damaged() {
        store = nil
        nextAttempt = 0
    }

    /// Seconds until the next attempt to open (0 when due or open).
    public var retryIn: Double { store == nil ? max(0, nextAttempt - now()) : 0 }

    private func openChecked() throws(SQLiteFileError) -> Opened {
        do {
            let opening = try SQLiteRideStore(path: path, newRideAfter: newRideAfter, context: context, uploadServices: uploadServices)
            try opening.checkIntegrity()
            store = opening
            return .opened
        } catch where error.isDamage {
            return try recover(error)
        }
    }

    /// Sets the damaged file aside and saves what it holds into a new one.
    private func recover(_ damage: SQLiteFileError) throws(SQLiteFileError) -> Opened {
        store = nil
        let aside = ResilientSpool.freeName(path + ".damaged")
        guard rename(path, aside) == 0 else {
            throw SQLiteFileError(path: path, operation: "set the damaged file aside", message: String(cString: strerror(errno)))
        }
        _ = rename(path + "-wal", aside + "-wal")
        _ = unlink(path + "-shm")
        recoveries += 1
        let fresh = try SQLiteRideStore(path: path, newRideAfter: newRideAfter, context: context, uploadServices: uploadServices)
        let salvage = try RideLogSalvage.copy(from: aside, into: fresh)
        store = fresh
        return .recovered(damage: damage, aside: aside, salvage: salvage)
    }
}

extension SQLiteRideStore {
    /// `PRAGMA quick_check`: the whole file's pages and rows read once; anything but "ok" is damage.
    func checkIntegrity() throws(SQLiteFileError) {
        try SQLiteCalls.quickCheck(db, path: path)
    }
}
