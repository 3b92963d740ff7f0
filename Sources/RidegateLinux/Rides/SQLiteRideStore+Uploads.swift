import CSQLite
import RidegateCore

/// The upload queue: a row per finished ride and training site, in the ride log beside the ride itself, so it
/// is synced with it and survives what the ride survives (a restart, a power cut).
extension SQLiteRideStore {
    /// Queues the ride for each site it is not queued for yet (a ride queued before keeps its row and state).
    public func queueUploads(ride: Int64, services: [UploadService]) throws(SpoolError) {
        for service in services {
            try execute("INSERT OR IGNORE INTO uploads (ride, service, state) VALUES (\(ride), '\(service.rawValue)', 'queued')")
        }
    }

    /// Every queued upload (`ride`: that ride's only), by ride then site.
    public func uploads(ride: Int64? = nil) throws(SpoolError) -> [UploadJob] {
        let statement = try prepare("""
            SELECT ride, service, state, attempts, next_attempt, upload_id, activity_id, activity_url, detail FROM uploads
            \(ride.map { "WHERE ride = \($0)" } ?? "") ORDER BY ride, service
            """)
        defer { sqlite3_finalize(statement) }
        var jobs: [UploadJob] = []
        while try step(statement, "read the upload queue") {
            // A row no release wrote (a hand edit, a later release's site) is left alone.
            guard let service = UploadService(rawValue: text(statement, 1)), let state = UploadJob.State(rawValue: text(statement, 2)) else { continue }
            var job = UploadJob(ride: sqlite3_column_int64(statement, 0), service: service)
            job.state = state
            job.attempts = Int(sqlite3_column_int64(statement, 3))
            job.nextAttempt = optionalDouble(statement, 4).map { Timestamp(secondsSince1970: $0) }
            job.uploadID = optionalText(statement, 5)
            job.activityID = optionalText(statement, 6)
            job.activityURL = optionalText(statement, 7)
            job.detail = optionalText(statement, 8)
            jobs.append(job)
        }
        return jobs
    }

    /// Writes the job's row (synced, as every write to the ride log is).
    public func update(_ job: UploadJob) throws(SpoolError) {
        let statement = try prepare("""
            INSERT OR REPLACE INTO uploads (ride, service, state, attempts, next_attempt, upload_id, activity_id, activity_url, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, job.ride)
        bind(statement, 2, job.service.rawValue)
        bind(statement, 3, job.state.rawValue)
        sqlite3_bind_int64(statement, 4, Int64(job.attempts))
        bind(statement, 5, job.nextAttempt?.secondsSince1970)
        bind(statement, 6, job.uploadID)
        bind(statement, 7, job.activityID)
        bind(statement, 8, job.activityURL)
        bind(statement, 9, job.detail)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw error("write the upload queue") }
    }

    private func optionalText(_ statement: OpaquePointer, _ column: Int32) -> String? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : text(statement, column)
    }

    private func optionalDouble(_ statement: OpaquePointer, _ column: Int32) -> Double? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
    }
}
