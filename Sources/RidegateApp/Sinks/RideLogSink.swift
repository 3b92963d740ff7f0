import RidegateCore
import RidegateLinux

/// Keeps the ride in the ride log (`rides.sqlite`): its points, laps, sensors and ends, written in batches on a
/// worker of its own (the pipeline never waits for the SD card): a batch goes out every `batchSeconds` of GPS
/// time, at a lap or a ride's end, and at an orderly stop. A power cut loses at most the batch in memory.
///
/// The file is opened on that worker, its integrity checked first (`RideLogFile`: a damaged file is set aside and
/// salvaged). While it cannot be opened or written (busy, a full disk, a read-only directory) the entries wait in
/// memory, an hour of 10 Hz fixes at most, and it is tried again with each batch (backoff up to a minute); the
/// log says so once per cause and `health` has `ride_log` (`disk` or `memory`), `ride_log_waiting`,
/// `ride_log_dropped` and `ride_log_recoveries`.
///
/// When a ride ends (it stood still past the gap, or the rider ended it) and at an orderly stop,
/// it writes the rides' files into the export directory, if one is configured, announces the newest finished one
/// on the retained `rides/last` topic, and keeps the ride log within its limits (on `health`: `ride_log_bytes`,
/// `rides_removed`). A ride still open is written too at a stop, but counts as exported only once a file of it is
/// written after it ended.
public final class RideLogSink: EffectSink, @unchecked Sendable {
    public struct Policy: Sendable {
        public var exportDirectory: String?
        public var exportFormats: [RideFileFormat]
        public var maximumBytes: Int64?
        public var maximumAgeDays: Double?
        /// The training sites configured: the ride log queues a ride for each in the commit that ends it
        /// (`RideLogFile`'s), and the uploader is woken once that batch is written.
        public var uploadServices: [UploadService] = []

        public init(exportDirectory: String? = nil, exportFormats: [RideFileFormat] = [.fit], maximumBytes: Int64? = nil,
                    maximumAgeDays: Double? = nil) {
            self.exportDirectory = exportDirectory
            self.exportFormats = exportFormats
            self.maximumBytes = maximumBytes
            self.maximumAgeDays = maximumAgeDays
        }
    }

    public let batchSeconds: Double
    private let file: RideLogFile
    private let version: String
    private let policy: Policy
    private let announce: @Sendable (Publication) -> Void
    /// Called once rides were queued for upload.
    private let uploadsQueued: @Sendable () -> Void
    private let health: HealthFields
    private let logger: Logger
    private let queue = SerialWorker(label: "ride log")
    /// Entries not yet handed to the queue (touched on the pipeline's thread and at shutdown).
    private let arriving = Locked<Batch>(Batch())
    /// Entries handed to the queue and not yet written (touched only on the queue).
    private var pending: [RideLogEntry] = []
    private var dropped: Int64 = 0
    private var lastError: String?
    private var lastExportError: String?
    private var removedRides: Int64 = 0
    private var keptInLimits = false
    /// Bounded: an hour of 10 Hz fixes, then the oldest points go (the ride summary on MQTT still has the totals).
    static let maximumPending = 36_000

    struct Batch {
        var entries: [RideLogEntry] = []
        var firstTime: Timestamp?
    }

    public init(file: RideLogFile, version: String, policy: Policy = Policy(),
                announce: @escaping @Sendable (Publication) -> Void = { _ in }, uploadsQueued: @escaping @Sendable () -> Void = {},
                health: HealthFields = HealthFields(), logger: Logger, batchSeconds: Double = 5) {
        self.file = file
        self.version = version
        self.policy = policy
        self.announce = announce
        self.uploadsQueued = uploadsQueued
        self.health = health
        self.logger = logger
        self.batchSeconds = batchSeconds
        health.set("rides_removed", 0)
        reportState()
        // Opened (and checked) on the worker: a large file's check must not hold up the gateway's start. The
        // uploader opens it only after that (a second connection would race this one's first setup of the file),
        // and then works what an earlier run left queued.
        queue.async { [self] in
            sweepExportDirectory()
            if openStore() != nil, !policy.uploadServices.isEmpty { uploadsQueued() }
        }
    }

    public func apply(_ effect: Effect) {
        guard case .record(let entry) = effect else { return }
        // Entries gather here on the pipeline's own thread; the queue (and the SD card) is woken once a batch.
        let due = arriving.withLock { batch -> [RideLogEntry]? in
            batch.entries.append(entry)
            var full: Bool
            switch entry {
            case .point(let point):
                let first = batch.firstTime ?? point.time
                batch.firstTime = first
                full = point.time - first >= batchSeconds || point.time < first
            case .lap, .end: full = true // a lap or an end is announced and exported now, not in five seconds
            case .device: full = false
            }
            guard full else { return nil }
            defer { batch = Batch() }
            return batch.entries
        }
        guard let due else { return }
        queue.async { [self] in
            pending += due
            flush()
        }
    }

    public func shutdown() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                pending += arriving.withLock { batch in
                    defer { batch = Batch() }
                    return batch.entries
                }
                let now = pending.lastPointTime
                flush(now: true)
                if let store = file.store { finishRides(store, includingNewest: true, now: now) }
                file.close()
                if !pending.isEmpty || dropped > 0 {
                    logger.error("the ride log could not be written before the stop; this part of the ride is lost", [
                        ("ride_log.lost", String(pending.count)), ("ride_log.dropped", String(dropped)), ("error", lastError ?? "-"),
                    ])
                }
                done.resume()
            }
        }
    }

    /// The store, opening it first when it is not open and an attempt is due; says what opening found.
    private func openStore(now: Bool = false) -> SQLiteRideStore? {
        do {
            guard let (store, opened) = try file.open(now: now) else { return nil }
            if case .recovered(let damage, let aside, let salvage) = opened {
                logger.error("the ride log was damaged; it was kept aside and what could be read was saved into a new one", [
                    ("ride_log.damage", damage.message), ("ride_log.kept_as", aside), ("ride_log.rides", String(salvage.rides)),
                    ("ride_log.points", String(salvage.points)), ("ride_log.unreadable_points", String(salvage.unreadablePoints)),
                    ("ride_log.damaged_rides", String(salvage.damagedRides)),
                ])
            }
            if opened != nil, lastError != nil {
                logger.notice("the ride log can be written again", [("ride_log.waiting", String(pending.count))])
                lastError = nil
            }
            if opened != nil, let bytes = try? store.usedBytes() { health.set("ride_log_bytes", bytes) }
            reportState()
            return store
        } catch {
            failed(error, doing: "open")
            return nil
        }
    }

    /// Writes what waits (`now`: at the stop, whatever the backoff says).
    private func flush(now: Bool = false) {
        guard !pending.isEmpty, let store = openStore(now: now) else { return bound() }
        let now = pending.lastPointTime
        do {
            try store.record(entries: pending)
            if lastError != nil { logger.notice("the ride log can be written again", [("ride_log.written", String(pending.count))]) }
            lastError = nil
            pending.removeAll()
            reportState()
        } catch {
            if error.isDamage { file.damaged() }
            failed(error, doing: "write")
            return bound()
        }
        let finished = store.takeFinished()
        if !finished.isEmpty || !keptInLimits { finishRides(store, includingNewest: false, now: now, announcing: finished) }
    }

    /// Said once per cause: why the ride log cannot be used now, and that the entries wait.
    private func failed(_ error: SQLiteFileError, doing operation: String) {
        if lastError != error.description {
            logger.error("cannot \(operation) the ride log; the ride waits in memory (up to an hour) and it is tried again", [
                ("error", error.description), ("ride_log.retry_s", String(Int(file.retryIn.rounded(.up)))),
                ("ride_log.waiting", String(pending.count)),
            ])
            lastError = error.description
        }
        reportState()
    }

    /// Keeps the entries waiting in memory within their bound, counting what goes.
    private func bound() {
        if pending.count > Self.maximumPending {
            dropped += Int64(pending.count - Self.maximumPending)
            pending.removeFirst(pending.count - Self.maximumPending)
        }
        reportState()
    }

    /// Entries wait only while the log cannot be written: a batch on its way to a writable log is not waiting
    /// (the stop's last `health` could otherwise catch one mid-write and say so).
    private func reportState() {
        health.set("ride_log", lastError == nil ? "disk" : "memory")
        health.set("ride_log_waiting", lastError == nil ? 0 : Int64(pending.count))
        health.set("ride_log_dropped", dropped)
        health.set("ride_log_recoveries", Int64(file.recoveries))
    }

    /// A ride file being written when the power went is a hidden temporary file in the export directory (the
    /// file itself is whole or absent, and written again): removed, and said.
    private func sweepExportDirectory() {
        guard let directory = policy.exportDirectory else { return }
        let removed = AtomicFile.removeLeftovers(in: directory)
        guard !removed.isEmpty else { return }
        logger.notice("removed ride files left half-written by an interrupted export (a power cut)",
                      [("rides.export_directory", directory), ("files", removed.joined(separator: " "))])
    }

    /// Exports what is due, announces the newest finished ride, applies the limits.
    private func finishRides(_ store: SQLiteRideStore, includingNewest: Bool, now: Timestamp?, announcing finished: [Int64] = []) {
        var rides: [SQLiteRideStore.Ride]
        do {
            rides = try store.rides()
        } catch {
            if error.isDamage { file.damaged() }
            logger.error("cannot read the ride log to export or prune it", [("error", error.description)])
            return
        }
        var files: [Int64: [String]] = [:]
        if let directory = policy.exportDirectory {
            let wanted = Set(policy.exportFormats.map(\.rawValue))
            // Closed rides not yet exported in every format; at a stop the open one too (marked only once it ends).
            for ride in rides where (ride.closed && !wanted.isSubset(of: ride.exported)) || (includingNewest && !ride.closed) {
                files[ride.id] = export(ride, from: store, into: directory)
            }
            // Read again for the announcement's `exported`; should that fail, it says what the first read did.
            if !files.isEmpty, let again = try? store.rides() { rides = again }
        }
        if !policy.uploadServices.isEmpty, !finished.isEmpty { uploadsQueued() }
        let announced = includingNewest ? rides.last.map { [$0.id] } ?? [] : finished
        if let ride = rides.last(where: { announced.contains($0.id) }) {
            let uploads = policy.uploadServices.isEmpty ? nil : (try? store.uploads(ride: ride.id)) ?? [] // unreadable: said by the uploader
            announce(Publication(topic: .ridesLast, payload: RideListing.object(ride, files: files[ride.id] ?? [], uploads: uploads), retain: true))
        }
        if let now { keepWithinLimits(store, now: now) }
    }

    private func export(_ ride: SQLiteRideStore.Ride, from store: SQLiteRideStore, into directory: String) -> [String] {
        let exporter = RideExporter(store: store, version: version)
        var written: [String] = []
        do throws(SQLiteFileError) {
            for format in policy.exportFormats {
                let path = directory + "/" + RideFileFormat.fileName(start: ride.start, id: ride.id, format: format)
                do {
                    try exporter.export(ride, as: format, to: path, modeRequired: false)
                } catch {
                    throw SQLiteFileError(path: path, operation: "export", message: error.description)
                }
                try store.markExported(ride: ride.id, format: format.rawValue)
                written.append(path)
            }
            if lastExportError != nil { logger.notice("ride files can be written again", [("rides.export_directory", directory)]) }
            lastExportError = nil
            logger.info("ride exported", [("ride", String(ride.id)), ("files", written.joined(separator: " "))])
        } catch {
            let text = error.description
            if lastExportError != text {
                logger.error("cannot write the ride's files; they are written when the next ride ends (or with `ridegate rides export`)",
                             [("ride", String(ride.id)), ("ride.export_directory", directory), ("error", text)])
                lastExportError = text
            }
        }
        return written
    }

    private func keepWithinLimits(_ store: SQLiteRideStore, now: Timestamp) {
        keptInLimits = true
        do {
            let removed = try store.prune(maximumBytes: policy.maximumBytes, maximumAgeDays: policy.maximumAgeDays, now: now)
            for ride in removed {
                logger.notice("removed an old ride to keep the ride log within its limits", [
                    ("ride", String(ride.id)), ("ride.start", ride.start.iso8601),
                    ("ride.exported", ride.exported.isEmpty ? "never" : ride.exported.joined(separator: ",")),
                    ("ride.keep_days", policy.maximumAgeDays.map { String(Int($0)) } ?? "-"),
                    ("ride.max_mb", policy.maximumBytes.map { String($0 / 1_048_576) } ?? "-"),
                ])
            }
            removedRides += Int64(removed.count)
            health.set("rides_removed", removedRides)
            health.set("ride_log_bytes", try store.usedBytes())
        } catch {
            logger.error("cannot keep the ride log within its limits", [("error", error.description)])
        }
    }
}

extension [RideLogEntry] {
    /// The time of the last point among the entries.
    var lastPointTime: Timestamp? {
        for entry in reversed() { if case .point(let point) = entry { return point.time } }
        return nil
    }
}
