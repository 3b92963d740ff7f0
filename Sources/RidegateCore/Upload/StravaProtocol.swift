/// Strava's upload, as its API documents it (https://developers.strava.com/docs/): OAuth 2 with a refresh token
/// that may change at every refresh (the newest one is kept), the file posted to `/api/v3/uploads`, then the
/// upload asked after until it names an activity or an error. A file Strava already has comes back as that error:
/// "x.fit duplicate of activity N" in older answers, and today "x.fit duplicate of <a href='/activities/N'
/// target='_blank'>Morning Ride</a>" (maintained clients parse `/activities/(\d+)` first, then the plain form):
/// that ride is on Strava, as activity N. Rate limits are per 15 minutes (on the quarter hour, UTC) and per day
/// (from midnight UTC): every request counts against `X-RateLimit-Limit`/`-Usage`, and a GET — a poll — also against
/// the read limit, `X-ReadRateLimit-Limit`/`-Usage` (developers.strava.com/docs/rate-limits).
public enum StravaProtocol {
    /// Where Strava sends the browser after the rider allows the upload: nothing listens there, and the code is
    /// read off the address bar.
    public static let redirectURI = "http://localhost/exchange_token"
    /// How long after an upload Strava is first asked about it (its docs: about once a second at most; most files
    /// are processed within seconds). Later questions wait twice as long each time, up to five minutes.
    public static let pollSeconds = 5.0
    /// The questions asked about one upload before it is given up as `failed` (about 70 minutes of processing):
    /// Strava that has not decided by then has lost the file, and `ridegate upload retry` sends it again.
    public static let maximumPolls = 20

    /// Seconds before question `polls + 1` about an upload: 5, 5, 10, 20 … up to 300.
    public static func pollDelay(polls: Int) -> Double {
        min(300, pollSeconds * Double(1 << min(max(polls - 1, 0), 6)))
    }

    public static func authorizeURL(baseURL: String, clientID: String) -> String {
        "\(baseURL)/oauth/authorize?client_id=\(clientID)&response_type=code&redirect_uri=\(redirectURI)"
            + "&approval_prompt=force&scope=activity:write,read"
    }

    /// The scope uploads need: the consent page lets the athlete untick it ("Upload your activities from … to Strava").
    public static let uploadScope = "activity:write"

    /// The code from what the rider pasted: the code itself, or the whole address the browser ended at.
    public static func code(fromPasted text: String) -> String? {
        let trimmed = String(text.filter { !$0.isWhitespace })
        var candidate = trimmed
        if trimmed.contains("?") {
            guard let value = queryValue("code", in: trimmed) else { return nil }
            candidate = value
        }
        guard !candidate.isEmpty, candidate.count <= 256, candidate.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return candidate
    }

    /// The scopes the athlete granted, from the address the browser ended at (`scope=read,activity:write`); nil when
    /// only a code was pasted.
    public static func grantedScopes(fromPasted text: String) -> [String]? {
        let trimmed = String(text.filter { !$0.isWhitespace })
        return queryValue("scope", in: trimmed).map { value in
            value.replacing("%2C", with: ",").replacing("%2c", with: ",").replacing("%3A", with: ":").replacing("%3a", with: ":")
                .split(separator: ",").map(String.init)
        }
    }

    private static func queryValue(_ name: String, in address: String) -> String? {
        guard let query = address.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        let prefix = name + "="
        return query.split(separator: "#").first?.split(separator: "&").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    public enum Grant: Sendable, Equatable {
        case authorizationCode(String)
        case refreshToken(String)
    }

    public static func tokenRequest(baseURL: String, clientID: String, clientSecret: String, grant: Grant) -> HTTPRequest {
        var fields = [("client_id", clientID), ("client_secret", clientSecret)]
        switch grant {
        case .authorizationCode(let code): fields += [("code", code), ("grant_type", "authorization_code")]
        case .refreshToken(let token): fields += [("refresh_token", token), ("grant_type", "refresh_token")]
        }
        return HTTPRequest(method: .post, url: "\(baseURL)/oauth/token", headers: ["Accept: application/json"], body: .form(fields))
    }

    public enum TokenVerdict: Sendable, Equatable {
        case token(StravaToken)
        /// The code or refresh token was refused: the rider must authorize again.
        case refused(String)
        case retry(after: Double?, reason: String)
    }

    public static func interpretToken(_ response: HTTPResponse, now: Timestamp) -> TokenVerdict {
        switch response.status {
        case 200:
            guard let token = StravaToken(answer: response.body, now: now) else {
                return .retry(after: nil, reason: "Strava's token answer had no access or refresh token")
            }
            return .token(token)
        case 400, 401, 403:
            return .refused("Strava refused the authorization (HTTP \(response.status)\(UploadAnswer.message(response.body).map { ": \($0)" } ?? ""))")
        case 429:
            return .retry(after: rateLimitWait(response, now: now), reason: "Strava's rate limit is reached (HTTP 429)")
        default:
            return .retry(after: nil, reason: "Strava answered HTTP \(response.status) to a token request")
        }
    }

    public static func upload(baseURL: String, accessToken: String, file: String, fileName: String, rideName: String,
                              externalID: String) -> HTTPRequest {
        HTTPRequest(method: .post, url: "\(baseURL)/api/v3/uploads", headers: ["Authorization: Bearer \(accessToken)", "Accept: application/json"],
                    body: .multipart([
                        .file(name: "file", path: file, fileName: fileName, contentType: "application/octet-stream"),
                        .field(name: "data_type", value: "fit"),
                        .field(name: "name", value: rideName),
                        .field(name: "external_id", value: externalID),
                    ]))
    }

    public static func poll(baseURL: String, accessToken: String, uploadID: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: "\(baseURL)/api/v3/uploads/\(uploadID)",
                    headers: ["Authorization: Bearer \(accessToken)", "Accept: application/json"])
    }

    public static func activityURL(baseURL: String, activityID: String) -> String {
        "\(baseURL)/activities/\(activityID)"
    }

    /// The answer to an upload (201) or to a question about one (200, a read): both are an upload's status.
    public static func interpret(_ response: HTTPResponse, now: Timestamp, for kind: Limits = .overall) -> UploadVerdict {
        switch response.status {
        case 200, 201:
            return status(response.body)
        case 401 where missingPermission(response.body):
            return .failed(reason: "Strava's authorization does not allow uploads (\(uploadScope) missing): run `ridegate upload strava-authorize` "
                + "again and leave \"Upload your activities\" ticked")
        case 401:
            return .refreshToken(reason: "Strava refused the access token (HTTP 401)")
        case 404:
            return .resend(reason: "Strava no longer knows the upload (HTTP 404): sending the file again")
        case 429:
            return .retry(after: rateLimitWait(response, now: now, for: kind), reason: "Strava's rate limit is reached (HTTP 429)")
        case 400, 403, 413, 415, 422:
            return .failed(reason: "Strava refused the upload (HTTP \(response.status)\(UploadAnswer.message(response.body).map { ": \($0)" } ?? ""))")
        default:
            return .retry(after: nil, reason: "Strava answered HTTP \(response.status)")
        }
    }

    private static func status(_ body: String) -> UploadVerdict {
        guard let json = UploadAnswer.object(body) else { return .retry(after: nil, reason: "Strava's answer was not JSON") }
        if let activity = UploadAnswer.identifier(json["activity_id"]) { return .done(activityID: activity, duplicate: false) }
        if let error = json["error"]?.string, !error.isEmpty {
            if let id = duplicateActivity(error) { return .done(activityID: id, duplicate: true) }
            return .failed(reason: "Strava could not read the file: \(error.prefix(200))")
        }
        guard let upload = UploadAnswer.identifier(json["id_str"]) ?? UploadAnswer.identifier(json["id"]) else {
            return .retry(after: nil, reason: "Strava's answer named no upload")
        }
        return .processing(uploadID: upload)
    }

    /// The activity a duplicate error names: the link's `/activities/N` (today's answer), else "duplicate of activity N".
    static func duplicateActivity(_ error: String) -> String? {
        guard error.contains("duplicate of") else { return nil }
        for marker in ["/activities/", "duplicate of activity "] {
            guard let range = error.firstRange(of: marker) else { continue }
            let id = error[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if !id.isEmpty, id.count < 19 { return String(id) }
        }
        return nil
    }

    /// Strava's 401 for a token without the upload scope: `{"errors":[{"resource":"AccessToken",
    /// "field":"activity:write_permission","code":"missing"}]}` — no refresh can mend that, only a new authorization.
    private static func missingPermission(_ body: String) -> Bool {
        UploadAnswer.object(body)?["errors"]?.array?.contains { $0["field"]?.string == "\(uploadScope)_permission" } ?? false
    }

    /// The limits a request counts against: every request the overall one, a GET (a poll) the read one too.
    public enum Limits: Sendable {
        case overall, reads

        fileprivate var headers: [(limit: String, usage: String)] {
            switch self {
            case .overall: [("x-ratelimit-limit", "x-ratelimit-usage")]
            case .reads: [("x-ratelimit-limit", "x-ratelimit-usage"), ("x-readratelimit-limit", "x-readratelimit-usage")]
            }
        }
    }

    /// Whether an answer's headers say a limit that `kind` counts against is used up (so the next such request would
    /// be refused), though this one went through.
    public static func limitReached(_ response: HTTPResponse, for kind: Limits = .overall) -> Bool {
        usedUp(response, kind).contains(true)
    }

    /// Per limit that `kind` counts against, whether its 15 minutes' and its day's counts are used up.
    private static func usedUp(_ response: HTTPResponse, _ kind: Limits) -> [Bool] {
        kind.headers.flatMap { names -> [Bool] in
            let limit = rateLimitPair(response, names.limit), usage = rateLimitPair(response, names.usage)
            guard limit.count == 2, usage.count == 2 else { return [] }
            return zip(usage, limit).map { $0 >= $1 && $1 > 0 }
        }
    }

    private static func rateLimitPair(_ response: HTTPResponse, _ name: String) -> [Int] {
        (response.headers[name] ?? "").split(separator: ",").compactMap { Int($0.trimmingPrefix(" ")) }
    }

    /// Seconds until the limit that was reached resets: a day's at midnight UTC, else the next quarter hour.
    public static func rateLimitWait(_ response: HTTPResponse, now: Timestamp, for kind: Limits = .overall) -> Double {
        let seconds = now.secondsSince1970
        // Per limit, [15 minutes, day]: the odd entries are days.
        let daily = usedUp(response, kind).enumerated().contains { $0.offset % 2 == 1 && $0.element }
        let period = daily ? 86_400.0 : 900.0
        let next = ((seconds / period).rounded(.down) + 1) * period
        return next - seconds + 1
    }
}

/// What Strava's authorization leaves: kept in `token_file` (JSON, the owner's only), replaced at each refresh.
public struct StravaToken: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresAt: Timestamp
    public var athleteID: String?

    public init(accessToken: String, refreshToken: String, expiresAt: Timestamp, athleteID: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.athleteID = athleteID
    }

    /// From a token answer (`expires_at`, else `expires_in` from `now`), or from the token file.
    public init?(answer body: String, now: Timestamp) {
        guard let json = UploadAnswer.object(body), let access = json["access_token"]?.string, let refresh = json["refresh_token"]?.string,
              !access.isEmpty, !refresh.isEmpty, access.utf8.count <= 512, refresh.utf8.count <= 512,
              !access.contains(where: { $0.isWhitespace }) else { return nil }
        // Out of any sensible range (a hostile or broken answer): taken as expired, so it is refreshed.
        // Whole seconds, as Strava sends them and the token file keeps them.
        let sensible = { (seconds: Double?) -> Double? in seconds.flatMap { $0.isFinite && $0 >= 0 && $0 < 1e11 ? $0.rounded(.down) : nil } }
        let expiry = sensible(json["expires_at"]?.double).map { Timestamp(secondsSince1970: $0) }
            ?? sensible(json["expires_in"]?.double).map { Timestamp(secondsSince1970: (now.secondsSince1970 + $0).rounded(.down)) }
        self.init(accessToken: access, refreshToken: refresh, expiresAt: expiry ?? now,
                  athleteID: UploadAnswer.identifier(json["athlete_id"]) ?? UploadAnswer.identifier(json["athlete"]?["id"]))
    }

    /// Still good for an upload: a minute to spare.
    public func isValid(at now: Timestamp) -> Bool { expiresAt - now > 60 }

    public var fileText: String {
        var json = JSONObjectWriter()
        json.add("access_token", accessToken)
        json.add("refresh_token", refreshToken)
        json.add("expires_at", Int(min(max(expiresAt.secondsSince1970, 0), 1e11).rounded(.down)))
        json.add("athlete_id", athleteID)
        return json.finish() + "\n"
    }
}
