import Glibc
import RidegateCore
import RidegateLinux

/// One turn through the upload queue, on the uploader's thread (one pass at a time): every due job is worked
/// and each step written to the ride log before the next begins.
final class UploadPass: @unchecked Sendable {
    // @unchecked: touched by one pass at a time, each on its own thread, one after the other.
    struct Outcome {
        /// Seconds until a job is due again (nil: none waits).
        var nextIn: Double?
        /// The newest finished ride's listing for `rides/last`, when its uploads changed.
        var announcement: String?
    }

    private let settings: RideUploader.Settings
    private let library: CurlLibrary
    private let logger: Logger
    private var resumed = false
    /// What was last said about each job ("ride/service"), so a problem that repeats is logged once.
    private var said: [String: String] = [:]
    private var saidOffline = false
    private var lastAnnouncement: String?
    private var strava: StravaSession?

    init(settings: RideUploader.Settings, library: CurlLibrary, logger: Logger) {
        self.settings = settings
        self.library = library
        self.logger = logger
        strava = settings.strava.map { StravaSession(site: $0, library: library, logger: logger, timeScale: settings.timeScale) }
    }

    func run() -> Outcome {
        let store: SQLiteRideStore
        var jobs: [UploadJob]
        var resumedNow = false
        do {
            store = try SQLiteRideStore(path: settings.rideLogPath, context: settings.context)
            jobs = try store.uploads()
            resumedNow = !resumed
            if !resumed {
                for job in jobs where job.state == .uploading { try store.update(job.resumed()) }
                jobs = jobs.map { $0.resumed() }
                resumed = true
            }
        } catch {
            say("ride log", "cannot read the upload queue; tried again in a minute", ("error", error.description))
            return Outcome(nextIn: 60)
        }
        // A site no longer configured keeps its jobs as they are: they go on if it comes back.
        jobs = jobs.filter { configured($0.service) }
        let now = SystemClock.wallClock()
        let due = jobs.indices.filter { jobs[$0].isDue(at: now) }
        if !due.isEmpty, needsRoute(jobs), !DefaultRoute.present() {
            if !saidOffline { logger.notice("no network: the ride uploads wait for one", [("uploads.waiting", String(due.count))]) }
            saidOffline = true
            return Outcome(nextIn: RideUploader.offlineRecheckSeconds, announcement: resumedNow ? announcement(store, jobs) : nil)
        }
        saidOffline = false
        for index in due { jobs[index] = work(jobs[index], store: store) }
        removeFiles(jobs)
        let waiting = jobs.filter { !$0.isFinished }.map { max(0, ($0.nextAttempt ?? now) - SystemClock.wallClock()) }
        return Outcome(nextIn: waiting.min(), announcement: announcement(store, jobs))
    }

    /// Works one job as far as it goes now; the job as it ends.
    private func work(_ start: UploadJob, store: SQLiteRideStore) -> UploadJob {
        var job = start
        guard let ride = try? store.ride(id: job.ride) else { // unreadable: as good as gone
            job.state = .failed
            job.detail = "the ride is no longer in the ride log"
            return record(job, store)
        }
        let upload = UploadFile(path: "\(settings.workDirectory)/upload-\(ride.id).fit",
                                name: RideFileFormat.fileName(start: ride.start, id: ride.id, format: .fit),
                                rideName: ride.name, externalID: "ridegate-\(settings.deviceID)-\(ride.id)")
        // Written once per pass for all of the ride's sites (a ride that ended never changes); gone when all are done.
        if job.state != .processing, access(upload.path, R_OK) != 0 {
            do {
                try RideExporter(store: store, version: settings.version).export(ride, as: .fit, to: upload.path)
            } catch {
                return record(retry(job, after: nil, "cannot write the ride's FIT file for the upload: \(error)"), store)
            }
        }
        if job.state != .processing {
            job.state = .uploading
            job = record(job, store)
        }
        var verdict: UploadVerdict
        switch job.service {
        case .intervalsICU:
            verdict = intervalsICU(upload)
        case .strava:
            verdict = strava?.work(job, upload) ?? .failed(reason: "Strava is no longer configured")
        }
        return record(apply(verdict, to: job), store)
    }

    struct UploadFile {
        var path: String
        var name: String
        var rideName: String
        var externalID: String
    }

    private func intervalsICU(_ upload: UploadFile) -> UploadVerdict {
        guard let site = settings.intervalsICU else { return .failed(reason: "intervals.icu is no longer configured") }
        let key: String
        do {
            key = try GatewayAssembly.readSecret(site.apiKeyFile, key: "upload.intervals_icu.api_key_file")
        } catch {
            return .retry(after: nil, reason: error.description)
        }
        let request = IntervalsICUProtocol.upload(baseURL: site.baseURL, athleteID: site.athleteID, apiKey: key, file: upload.path,
                                                  fileName: upload.name, rideName: upload.rideName, externalID: upload.externalID)
        switch HTTPTransfer(library: library, caFile: site.caFile).perform(request) {
        case .success(let response): return IntervalsICUProtocol.interpret(response)
        case .failure(let failure): return Self.verdict(failure, site: "intervals.icu")
        }
    }

    static func verdict(_ failure: HTTPFailure, site: String) -> UploadVerdict {
        switch failure.kind {
        case .offline: .retry(after: nil, reason: "cannot reach \(site): \(failure.message)")
        case .tls: .retry(after: nil, reason: "\(site)'s certificate is not trusted (a Wi-Fi's sign-in page, this Pi's clock not yet set, or a wrong ca_file): \(failure.message)")
        case .dropped: .retry(after: nil, reason: "the connection to \(site) broke during the upload: \(failure.message)")
        case .file, .other: .retry(after: nil, reason: "the upload to \(site) failed: \(failure.message)")
        }
    }

    private func apply(_ verdict: UploadVerdict, to start: UploadJob) -> UploadJob {
        var job = start
        let baseURL = job.service == .strava ? settings.strava?.baseURL ?? "" : settings.intervalsICU?.baseURL ?? ""
        switch verdict {
        case .done(let activity, let duplicate):
            job.state = .done
            job.activityID = activity
            job.activityURL = job.service == .strava ? StravaProtocol.activityURL(baseURL: baseURL, activityID: activity)
                : IntervalsICUProtocol.activityURL(baseURL: baseURL, activityID: activity)
            job.detail = duplicate ? "the site already had this ride" : nil
            job.attempts = 0
            job.nextAttempt = nil
            job.uploadID = nil
        case .processing(let upload):
            job = job.processing(uploadID: upload, at: SystemClock.wallClock(), timeScale: settings.timeScale)
        case .retry(let after, let reason):
            job = retry(job, after: after, reason)
        case .resend(let reason), .refreshToken(let reason):
            job.state = .queued
            job.uploadID = nil
            job.detail = reason
            job.nextAttempt = nil
        case .failed(let reason):
            job.state = .failed
            job.detail = reason
            job.nextAttempt = nil
        }
        return job
    }

    private func retry(_ start: UploadJob, after: Double?, _ reason: String) -> UploadJob {
        var job = start
        if job.state != .processing { job.state = .queued }
        job.attempts += 1
        job.detail = reason
        let wait = after ?? UploadBackoff.delay(attempts: job.attempts, random: Double.random(in: 0..<1))
        job.nextAttempt = SystemClock.wallClock() + wait / settings.timeScale
        return job
    }

    /// Writes the job and says what changed in it: once per new problem, and when it is done.
    private func record(_ job: UploadJob, _ store: SQLiteRideStore) -> UploadJob {
        do {
            try store.update(job)
        } catch {
            say("ride log", "cannot write the upload queue; the upload is worked again at the next pass", ("error", error.description))
        }
        let key = "\(job.ride)/\(job.service.rawValue)"
        let fields = [("ride", String(job.ride)), ("upload.site", job.service.displayName)]
        switch job.state {
        case .done:
            logger.info("ride uploaded", fields + [("upload.activity", job.activityURL ?? "-"), ("upload.note", job.detail ?? "-")])
            said[key] = nil
        case .failed:
            logger.error("the ride's upload failed; after fixing it, run: ridegate upload retry \(job.ride)", fields + [("reason", job.detail ?? "-")])
        case .queued where job.detail != nil && said[key] != job.detail:
            logger.warning("the ride's upload did not go through; it is tried again", fields + [
                ("reason", job.detail ?? "-"), ("upload.next_attempt", job.nextAttempt?.iso8601 ?? "now"),
            ])
            said[key] = job.detail
        default:
            break
        }
        return job
    }

    private func say(_ key: String, _ message: String, _ field: (String, String)) {
        guard said[key] != field.1 else { return }
        said[key] = field.1
        logger.error(message, [field])
    }

    /// The FIT files written for uploads whose every site is finished.
    private func removeFiles(_ jobs: [UploadJob]) {
        let rides = Set(jobs.map(\.ride))
        for ride in rides where jobs.allSatisfy({ $0.ride != ride || $0.isFinished || $0.state == .processing }) {
            _ = unlink("\(settings.workDirectory)/upload-\(ride).fit")
        }
    }

    private func configured(_ service: UploadService) -> Bool {
        switch service {
        case .intervalsICU: settings.intervalsICU != nil
        case .strava: strava != nil
        }
    }

    /// Whether any site is reached over the network (a loopback one needs no route).
    private func needsRoute(_ jobs: [UploadJob]) -> Bool {
        let urls = [settings.intervalsICU?.baseURL, settings.strava?.baseURL].compactMap { $0 }
        return urls.contains { url in
            let host = url.split(separator: "/").dropFirst().first.map { String($0.prefix { $0 != ":" }) } ?? ""
            return !(host == "localhost" || host.hasPrefix("127.") || url.contains("://[::1]"))
        }
    }

    private func announcement(_ store: SQLiteRideStore, _ jobs: [UploadJob]) -> String? {
        // Unreadable: said by the pass.
        guard let ride = try? store.newestClosedRide(), jobs.contains(where: { $0.ride == ride.id }) else { return nil }
        let files = settings.exportDirectory.map { directory in
            ride.exported.compactMap(RideFileFormat.init(rawValue:)).map { "\(directory)/\(RideFileFormat.fileName(start: ride.start, id: ride.id, format: $0))" }
        }
        let listing = RideListing.object(ride, files: files, uploads: jobs.filter { $0.ride == ride.id })
        guard listing != lastAnnouncement else { return nil }
        lastAnnouncement = listing
        return listing
    }
}
