/// A training site a finished ride is uploaded to.
public enum UploadService: String, CaseIterable, Sendable, Comparable {
    case intervalsICU = "intervals_icu"
    case strava

    public var displayName: String {
        switch self {
        case .intervalsICU: "intervals.icu"
        case .strava: "Strava"
        }
    }

    public static func < (a: UploadService, b: UploadService) -> Bool { a.rawValue < b.rawValue }
}

/// One ride's upload to one site, as the queue keeps it (a row of the ride log's `uploads` table).
///
/// queued → uploading → (Strava: processing →) done | failed. `uploading` is written before the file is sent:
/// a job found there at a start was cut off mid-upload and is sent again, and the site's duplicate check turns a
/// copy it already kept into `done` with the first activity. `queued` carries the last problem (`detail`) and when
/// to try again (`nextAttempt`); `failed` needs the rider (`ridegate upload retry`).
public struct UploadJob: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        case queued, uploading, processing, done, failed
    }

    public var ride: Int64
    public var service: UploadService
    public var state: State = .queued
    /// Attempts that failed in a row (for the backoff); 0 again after a success.
    public var attempts = 0
    public var nextAttempt: Timestamp?
    /// Strava's upload id while it processes the file.
    public var uploadID: String?
    public var activityID: String?
    public var activityURL: String?
    /// The last problem, or why it failed.
    public var detail: String?

    public init(ride: Int64, service: UploadService) {
        self.ride = ride
        self.service = service
    }

    public var isFinished: Bool { state == .done || state == .failed }

    /// The longest wait ridegate sets (Strava's daily limit, a day, with room): one further off means the clock
    /// went back since (a Pi without a real-time clock, set by the network or GPS after it started).
    public static let longestWait = 90_000.0

    /// Due to run at `now`.
    public func isDue(at now: Timestamp) -> Bool {
        !isFinished && (nextAttempt.map { $0 <= now || $0 - now > Self.longestWait } ?? true)
    }

    /// Strava took the file, or was asked about it again, and still processes it. `attempts` counts the questions
    /// (the upload's own answer is 0) and spaces the next (`StravaProtocol.pollDelay`, divided by `timeScale`); after
    /// `StravaProtocol.maximumPolls` the job fails, saying what to do.
    public func processing(uploadID: String, at now: Timestamp, timeScale: Double = 1) -> UploadJob {
        var job = self
        let polls = state == .processing ? attempts + 1 : 0
        guard polls < StravaProtocol.maximumPolls else {
            job.state = .failed
            job.detail = "Strava had not processed the upload after \(polls) questions over about 70 minutes; "
                + "see strava.com/athlete/training, or send it again with `ridegate upload retry \(ride)`"
            job.nextAttempt = nil
            return job
        }
        job.state = .processing
        job.uploadID = uploadID
        job.attempts = polls
        job.nextAttempt = now + StravaProtocol.pollDelay(polls: polls) / timeScale
        return job
    }

    /// A job read back at a start: an upload cut off mid-way is sent again.
    public func resumed() -> UploadJob {
        var job = self
        if job.state == .uploading { job.state = .queued }
        return job
    }
}

/// What an exchange with a site comes to.
public enum UploadVerdict: Sendable, Equatable {
    /// The site has the activity (`duplicate`: it had it already, from an earlier attempt).
    case done(activityID: String, duplicate: Bool)
    /// Strava took the file and processes it: ask again later.
    case processing(uploadID: String)
    /// Try again: after `after` seconds, or by the backoff (nil).
    case retry(after: Double?, reason: String)
    /// The site no longer knows the upload it was asked about: send the file again, now.
    case resend(reason: String)
    /// The access token was refused: refresh it, then try again at once (Strava).
    case refreshToken(reason: String)
    /// It cannot work as things are (a refused file, a refused key): the rider must act.
    case failed(reason: String)
}

public enum UploadBackoff {
    /// Seconds before attempt `attempts + 1`: 30 s doubling to an hour, each spread over ±25 % (`random` in 0..<1)
    /// so bikes that came home together do not all knock at once.
    public static func delay(attempts: Int, random: Double) -> Double {
        let base = min(3600, 30 * Double(1 << min(max(attempts - 1, 0), 7)))
        return base * (0.75 + 0.5 * min(max(random, 0), 1))
    }
}

extension UploadJob {
    /// The job as `ridegate upload status --json` and `rides/last` give it.
    public var jsonObject: String {
        var json = JSONObjectWriter()
        json.add("ride", Int(ride))
        json.add("service", service.rawValue)
        json.add("state", state.rawValue)
        json.add("activity_id", activityID)
        json.add("activity_url", activityURL)
        json.add("reason", detail)
        json.add("attempts", attempts)
        json.add("next_attempt", isFinished ? nil : nextAttempt?.iso8601)
        return json.finish()
    }

    /// One word for a ride's uploads together (`rides/last`'s `upload`): failed if one failed, else uploading
    /// while one is under way, queued while one waits, done when all are; "none" with no site configured.
    public static func overallState(_ jobs: [UploadJob]) -> String {
        if jobs.isEmpty { return "none" }
        if jobs.contains(where: { $0.state == .failed }) { return "failed" }
        if jobs.contains(where: { $0.state == .uploading || $0.state == .processing }) { return "uploading" }
        if jobs.contains(where: { $0.state == .queued }) { return "queued" }
        return "done"
    }
}
