import RidegateCore
import RidegateLinux

/// Keeps every point of the ride in the ride log (`rides.sqlite`), written in batches on a worker of its own
/// (the pipeline never waits for the SD card): a batch goes out every `batchSeconds` of GPS time, and at an
/// orderly stop. A power cut loses at most the batch in memory. Write errors are logged once per change.
///
/// When a ride ends (the store starts a new one after a long stop) and at an orderly stop, it writes the
/// finished rides' files into the export directory, if one is configured, announces the newest on the
/// retained `rides/last` topic, and keeps the ride log within its limits (on `health`: `ride_log_bytes`,
/// `rides_removed`).
public final class RideLogSink: EffectSink, @unchecked Sendable {
    public struct Policy: Sendable {
        public var exportDirectory: String?
        public var exportFormats: [RideFileFormat]
        public var maximumBytes: Int64?
        public var maximumAgeDays: Double?
        public var creator: String

        public init(exportDirectory: String? = nil, exportFormats: [RideFileFormat] = [.fit], maximumBytes: Int64? = nil,
                    maximumAgeDays: Double? = nil, creator: String = "ridegate") {
            self.exportDirectory = exportDirectory
            self.exportFormats = exportFormats
            self.maximumBytes = maximumBytes
            self.maximumAgeDays = maximumAgeDays
            self.creator = creator
        }
    }

    public let batchSeconds: Double
    private let store: SQLiteRideStore
    private let policy: Policy
    private let announce: @Sendable (Publication) -> Void
    private let health: HealthFields
    private let logger: Logger
    private let queue = SerialWorker(label: "ride log")
    /// Points not yet handed to the queue (touched on the pipeline's thread and at shutdown).
    private let arriving = Locked<[RidePoint]>([])
    /// Points handed to the queue and not yet written (touched only on the queue).
    private var pending: [RidePoint] = []
    private var lastError: String?
    private var lastExportError: String?
    private var removedRides: Int64 = 0
    private var keptInLimits = false

    public init(store: SQLiteRideStore, policy: Policy = Policy(), announce: @escaping @Sendable (Publication) -> Void = { _ in },
                health: HealthFields = HealthFields(), logger: Logger, batchSeconds: Double = 5) {
        self.store = store
        self.policy = policy
        self.announce = announce
        self.health = health
        self.logger = logger
        self.batchSeconds = batchSeconds
        health.set("rides_removed", 0)
        if let bytes = try? store.usedBytes() { health.set("ride_log_bytes", bytes) }
    }

    public func apply(_ effect: Effect) {
        guard case .recordPoint(let point) = effect else { return }
        // Points gather here on the pipeline's own thread; the queue (and the SD card) is woken once a batch.
        let due = arriving.withLock { batch -> [RidePoint]? in
            batch.append(point)
            guard let first = batch.first, point.time - first.time >= batchSeconds || point.time < first.time else { return nil }
            defer { batch.removeAll(keepingCapacity: true) }
            return batch
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
                    defer { batch.removeAll() }
                    return batch
                }
                let now = pending.last?.time
                flush()
                finishRides(includingNewest: true, now: now)
                done.resume()
            }
        }
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        let now = pending.last?.time
        do {
            try store.record(pending)
            if lastError != nil { logger.notice("the ride log can be written again") }
            lastError = nil
            pending.removeAll()
        } catch {
            if lastError != error.description {
                logger.error("cannot write the ride log; points wait in memory", [("error", error.description)])
                lastError = error.description
            }
            // Bounded: an hour of 10 Hz fixes, then the oldest go (the ride summary on MQTT still has the totals).
            if pending.count > 36_000 { pending.removeFirst(pending.count - 36_000) }
            return
        }
        let finished = store.takeFinished()
        if !finished.isEmpty || !keptInLimits { finishRides(includingNewest: false, now: now, announcing: finished) }
    }

    /// Exports what is due, announces the newest finished ride, applies the limits.
    private func finishRides(includingNewest: Bool, now: Timestamp?, announcing finished: [Int64] = []) {
        let rides: [SQLiteRideStore.Ride]
        do {
            rides = try store.rides()
        } catch {
            logger.error("cannot read the ride log to export or prune it", [("error", error.description)])
            return
        }
        var files: [Int64: [String]] = [:]
        if let directory = policy.exportDirectory {
            let due = includingNewest ? rides : Array(rides.dropLast())
            for ride in due where !Set(policy.exportFormats.map(\.rawValue)).isSubset(of: ride.exported) || (includingNewest && ride.id == rides.last?.id) {
                files[ride.id] = export(ride, into: directory)
            }
        }
        let announced = includingNewest ? rides.last.map { [$0.id] } ?? [] : finished
        if let ride = rides.last(where: { announced.contains($0.id) }) {
            announce(Publication(topic: .ridesLast, payload: Self.payload(ride, files: files[ride.id] ?? []), retain: true))
        }
        if let now { keepWithinLimits(now: now) }
    }

    private func export(_ ride: SQLiteRideStore.Ride, into directory: String) -> [String] {
        var written: [String] = []
        do {
            let points = try store.points(ride: ride.id)
            for format in policy.exportFormats {
                let path = directory + "/" + RideFileFormat.fileName(start: ride.start, id: ride.id, format: format)
                let bytes = format.write(points, name: ride.name, creator: policy.creator, serialNumber: UInt32(truncatingIfNeeded: ride.id))
                try TextFile.replace(path, withBytes: bytes, mode: 0o644, modeRequired: false)
                try store.markExported(ride: ride.id, format: format.rawValue)
                written.append(path)
            }
            if lastExportError != nil { logger.notice("ride files can be written again", [("rides.export_directory", directory)]) }
            lastExportError = nil
            logger.info("ride exported", [("ride", String(ride.id)), ("files", written.joined(separator: " "))])
        } catch {
            let text = "\(error)"
            if lastExportError != text {
                logger.error("cannot write the ride's files; they are written when the next ride ends (or with `ridegate rides export`)",
                             [("ride", String(ride.id)), ("ride.export_directory", directory), ("error", text)])
                lastExportError = text
            }
        }
        return written
    }

    private func keepWithinLimits(now: Timestamp) {
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

    static func payload(_ ride: SQLiteRideStore.Ride, files: [String]) -> String {
        var json = JSONObjectWriter(capacity: 320)
        json.add("id", Int(ride.id))
        json.add("name", ride.name)
        json.add("start", ride.start.iso8601)
        json.add("end", ride.end.iso8601)
        json.add("distance_m", ride.distanceMeters, decimals: 1)
        json.add("moving_time_s", ride.movingSeconds, decimals: 0)
        json.add("elapsed_time_s", ride.elapsedSeconds, decimals: 0)
        json.add("elevation_gain_m", ride.elevationGainMeters, decimals: 0)
        json.add("avg_hr_bpm", ride.averageHeartRate, decimals: 0)
        json.add("max_hr_bpm", ride.maximumHeartRate)
        json.add("files", files)
        return json.finish()
    }
}
