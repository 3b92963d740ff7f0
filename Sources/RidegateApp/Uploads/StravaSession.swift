import RidegateCore
import RidegateLinux

/// Strava's side of the uploads: the token file (read when needed, replaced at each refresh, since Strava may
/// hand out a new refresh token and the old one then stops working), the upload, and the questions about it.
final class StravaSession: @unchecked Sendable {
    // @unchecked: used by one upload pass at a time.
    private let site: GatewayConfig.Strava
    private let library: CurlLibrary
    private let logger: Logger
    private var token: StravaToken?
    /// A limit the last answer said was used up: nothing is asked before then (overall), no upload asked after
    /// (reads: the polls).
    private var limitedUntil: Timestamp?
    private var readsLimitedUntil: Timestamp?
    /// How many times faster than real time the clock runs (the demo's `--speed`): a limit's reset comes sooner
    /// by as much, as every other wait of the upload pass does.
    private let timeScale: Double

    init(site: GatewayConfig.Strava, library: CurlLibrary, logger: Logger, timeScale: Double = 1) {
        self.site = site
        self.library = library
        self.logger = logger
        self.timeScale = timeScale
    }

    func work(_ job: UploadJob, _ upload: UploadPass.UploadFile) -> UploadVerdict {
        let now = SystemClock.wallClock()
        // The pass divides a verdict's wait by the time scale; `until` is already on the scaled clock.
        if let until = limitedUntil, until > now {
            return .retry(after: (until - now) * timeScale, reason: "Strava's rate limit is used up until \(until.iso8601)")
        }
        if job.state == .processing, let until = readsLimitedUntil, until > now {
            return .retry(after: (until - now) * timeScale,
                          reason: "Strava's read limit (the questions about uploads) is used up until \(until.iso8601)")
        }
        var current: StravaToken
        switch usableToken(now: now) {
        case .success(let token): current = token
        case .failure(let problem): return problem.verdict
        }
        let verdict = exchange(job, upload, token: current, now: now)
        guard case .refreshToken(let reason) = verdict else { return verdict }
        logger.notice("Strava refused the access token; refreshing it", [("ride", String(job.ride)), ("reason", reason)])
        switch refresh(current, now: now) {
        case .success(let fresh): current = fresh
        case .failure(let problem): return problem.verdict
        }
        let again = exchange(job, upload, token: current, now: now)
        if case .refreshToken = again {
            return .failed(reason: "Strava refused a freshly refreshed access token: authorize again with `ridegate upload strava-authorize`")
        }
        return again
    }

    private func exchange(_ job: UploadJob, _ upload: UploadPass.UploadFile, token: StravaToken, now: Timestamp) -> UploadVerdict {
        let polling = job.state == .processing && job.uploadID != nil
        let request = if polling, let id = job.uploadID {
            StravaProtocol.poll(baseURL: site.baseURL, accessToken: token.accessToken, uploadID: id)
        } else {
            StravaProtocol.upload(baseURL: site.baseURL, accessToken: token.accessToken, file: upload.path, fileName: upload.name,
                                  rideName: upload.rideName, externalID: upload.externalID)
        }
        switch HTTPTransfer(library: library, caFile: site.caFile).perform(request) {
        case .success(let response):
            limitedUntil = StravaProtocol.limitReached(response) ? now + StravaProtocol.rateLimitWait(response, now: now) / timeScale : nil
            if polling {
                readsLimitedUntil = StravaProtocol.limitReached(response, for: .reads)
                    ? now + StravaProtocol.rateLimitWait(response, now: now, for: .reads) / timeScale : nil
            }
            return StravaProtocol.interpret(response, now: now, for: polling ? .reads : .overall)
        case .failure(let failure):
            return UploadPass.verdict(failure, site: "Strava")
        }
    }

    struct Problem: Error {
        var verdict: UploadVerdict
    }

    /// The token from the file (read once), refreshed first when it expires within a minute.
    private func usableToken(now: Timestamp) -> Result<StravaToken, Problem> {
        if token == nil {
            do {
                let text = String(decoding: try SmallFile.read(site.tokenFile, limit: 4096), as: UTF8.self)
                token = StravaToken(answer: text, now: now)
                if token == nil {
                    return .failure(Problem(verdict: .failed(reason: "upload.strava.token_file = \"\(site.tokenFile)\" holds no token: authorize again with `ridegate upload strava-authorize`")))
                }
            } catch {
                return .failure(Problem(verdict: .retry(after: nil, reason: "Strava is not authorized yet (\(error)): run `ridegate upload strava-authorize`")))
            }
        }
        guard let token else { return .failure(Problem(verdict: .retry(after: nil, reason: "no Strava token"))) }
        return token.isValid(at: now) ? .success(token) : refresh(token, now: now)
    }

    private func refresh(_ old: StravaToken, now: Timestamp) -> Result<StravaToken, Problem> {
        switch Self.requestToken(site, library: library, grant: .refreshToken(old.refreshToken), now: now) {
        case .token(var fresh):
            fresh.athleteID = fresh.athleteID ?? old.athleteID
            token = fresh
            do {
                try TextFile.replace(site.tokenFile, with: fresh.fileText, mode: 0o600)
            } catch {
                // Strava may have retired the old refresh token: without the file, the next start must authorize again.
                logger.error("cannot keep Strava's new token; after a restart Strava must be authorized again unless this is fixed",
                             [("upload.strava.token_file", site.tokenFile), ("error", error.description)])
            }
            return .success(fresh)
        case .refused(let reason):
            token = nil
            return .failure(Problem(verdict: .failed(reason: reason + ": authorize again with `ridegate upload strava-authorize`")))
        case .retry(let after, let reason):
            return .failure(Problem(verdict: .retry(after: after, reason: reason)))
        }
    }

    /// One token request: a code exchanged (`upload strava-authorize`) or a refresh token used.
    static func requestToken(_ site: GatewayConfig.Strava, library: CurlLibrary, grant: StravaProtocol.Grant,
                             now: Timestamp) -> StravaProtocol.TokenVerdict {
        let secret: String
        do {
            secret = try GatewayAssembly.readSecret(site.clientSecretFile, key: "upload.strava.client_secret_file")
        } catch {
            return .retry(after: nil, reason: error.description)
        }
        let request = StravaProtocol.tokenRequest(baseURL: site.baseURL, clientID: site.clientID, clientSecret: secret, grant: grant)
        switch HTTPTransfer(library: library, caFile: site.caFile).perform(request) {
        case .success(let response): return StravaProtocol.interpretToken(response, now: now)
        case .failure(let failure):
            guard case .retry(let after, let reason) = UploadPass.verdict(failure, site: "Strava") else {
                return .retry(after: nil, reason: failure.message)
            }
            return .retry(after: after, reason: reason)
        }
    }
}

/// `ridegate upload strava-authorize`: the code the rider brings back exchanged for the first tokens, kept.
public enum StravaAuthorization {
    public enum Failure: Error, CustomStringConvertible {
        case refused(String)
        case unreachable(String)
        case notKept(String)

        public var description: String {
            switch self {
            case .refused(let reason), .unreachable(let reason), .notKept(let reason): reason
            }
        }
    }

    public static func exchange(_ site: GatewayConfig.Strava, code: String) -> Result<StravaToken, Failure> {
        let library: CurlLibrary
        do {
            library = try CurlLibrary()
        } catch {
            return .failure(.unreachable(error.description))
        }
        switch StravaSession.requestToken(site, library: library, grant: .authorizationCode(code), now: SystemClock.wallClock()) {
        case .token(let token): return .success(token)
        case .refused(let reason): return .failure(.refused(reason + ": open the address again for a new code (each code works once)"))
        case .retry(_, let reason): return .failure(.unreachable(reason))
        }
    }

    /// Writes the token file, the owner's only; made by root (sudo) it is handed to the owner of its directory,
    /// the daemon's user.
    public static func keep(_ token: StravaToken, in site: GatewayConfig.Strava) -> Failure? {
        do {
            try TextFile.replace(site.tokenFile, with: token.fileText, mode: 0o600)
        } catch {
            return .notKept("cannot write upload.strava.token_file: \(error)")
        }
        ProcessPaths.giveToDirectoryOwner(site.tokenFile)
        return nil
    }
}
