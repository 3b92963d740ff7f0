import RidegateCore
import Testing

@Suite struct UploadRulesTests {
    let now = Timestamp(secondsSince1970: 1_780_000_000) // 2026-05-28T20:26:40Z

    @Test("intervals.icu: 201 a new activity, 200 the one it already had, 401/403/4xx the rider's to fix, 429 and 5xx again later")
    func intervalsICU() {
        #expect(IntervalsICUProtocol.interpret(HTTPResponse(status: 201, body: #"{"icu_athlete_id":"i1","id":"i1001"}"#))
                == .done(activityID: "i1001", duplicate: false))
        #expect(IntervalsICUProtocol.interpret(HTTPResponse(status: 200, body: #"{"icu_athlete_id":"i1","id":"i1001"}"#))
                == .done(activityID: "i1001", duplicate: true))
        // The id in the activities list only, as some answers carry it.
        #expect(IntervalsICUProtocol.interpret(HTTPResponse(status: 201, body: #"{"icu_athlete_id":"i1","activities":[{"id":"i1002"}]}"#))
                == .done(activityID: "i1002", duplicate: false))
        guard case .failed(let key) = IntervalsICUProtocol.interpret(HTTPResponse(status: 401, body: "{}")) else { return #expect(Bool(false)) }
        #expect(key.contains("api_key_file"))
        guard
            case .failed(let file) = IntervalsICUProtocol.interpret(
                HTTPResponse(status: 422, body: #"{"status":422,"error":"Unable to parse activity file"}"#))
        else { return #expect(Bool(false)) }
        #expect(file.contains("Unable to parse activity file"))
        #expect(IntervalsICUProtocol.interpret(HTTPResponse(status: 429, headers: ["retry-after": "7"])) == .retry(after: 7, reason: "intervals.icu asks to slow down (HTTP 429)"))
        guard case .retry(nil, _) = IntervalsICUProtocol.interpret(HTTPResponse(status: 502, body: "<html>")) else { return #expect(Bool(false)) }
        guard case .retry = IntervalsICUProtocol.interpret(HTTPResponse(status: 201, body: "not json")) else { return #expect(Bool(false)) }
    }

    @Test("intervals.icu's request: the file alone in the multipart body, name and external_id as URL parameters, basic auth with user API_KEY")
    func intervalsICURequest() {
        let request = IntervalsICUProtocol.upload(baseURL: "https://intervals.icu", athleteID: "0", apiKey: "k", file: "/tmp/r.fit",
                                                  fileName: "r.fit", rideName: "Morning ride & café", externalID: "ridegate-x-1")
        #expect(request.url == "https://intervals.icu/api/v1/athlete/0/activities?name=Morning%20ride%20%26%20caf%C3%A9&external_id=ridegate-x-1")
        #expect(request.basicAuth?.user == "API_KEY" && request.basicAuth?.password == "k")
        #expect(request.body == .multipart([.file(name: "file", path: "/tmp/r.fit", fileName: "r.fit", contentType: "application/octet-stream")]))
    }

    @Test("Strava: an upload is processing, then an activity, a duplicate of one (done), or an error (failed)")
    func stravaStatus() {
        let processing = #"{"id":5001,"id_str":"5001","external_id":"x","error":null,"status":"Your activity is still being processed.","activity_id":null}"#
        #expect(StravaProtocol.interpret(HTTPResponse(status: 201, body: processing), now: now) == .processing(uploadID: "5001"))
        let ready = #"{"id":5001,"id_str":"5001","error":null,"status":"Your activity is ready.","activity_id":9001}"#
        #expect(StravaProtocol.interpret(HTTPResponse(status: 200, body: ready), now: now) == .done(activityID: "9001", duplicate: false))
        let duplicate = #"{"id":5002,"error":"ride.fit duplicate of activity 9001","status":"There was an error processing your activity.","activity_id":null}"#
        #expect(StravaProtocol.interpret(HTTPResponse(status: 200, body: duplicate), now: now) == .done(activityID: "9001", duplicate: true))
        // Today's answer: the activity as a link (incyclist/services' Strava test; docs/uploads: "potentially containing HTML").
        let linked = #"{"id":5002,"error":"ride.fit duplicate of <a href='/activities/18260018524' target='_blank'>Morning Ride</a>","status":"There was an error processing your activity.","activity_id":null}"#
        #expect(StravaProtocol.interpret(HTTPResponse(status: 200, body: linked), now: now) == .done(activityID: "18260018524", duplicate: true))
        // A token without the upload scope: no refresh mends it.
        let noScope = #"{"message":"Authorization Error","errors":[{"resource":"AccessToken","field":"activity:write_permission","code":"missing"}]}"#
        let refused = StravaProtocol.interpret(HTTPResponse(status: 401, body: noScope), now: now)
        guard case .failed(let scope) = refused else { return #expect(Bool(false), "\(refused)") }
        #expect(scope.contains("strava-authorize") && scope.contains("Upload your activities"))
        let bad = #"{"id":5003,"error":"Improperly formatted data.","status":"There was an error processing your activity.","activity_id":null}"#
        guard case .failed(let reason) = StravaProtocol.interpret(HTTPResponse(status: 200, body: bad), now: now) else { return #expect(Bool(false)) }
        #expect(reason.contains("Improperly formatted data."))
        guard case .refreshToken = StravaProtocol.interpret(HTTPResponse(status: 401, body: "{}"), now: now) else { return #expect(Bool(false)) }
        guard case .resend = StravaProtocol.interpret(HTTPResponse(status: 404, body: "{}"), now: now) else { return #expect(Bool(false)) }
        guard case .retry(nil, _) = StravaProtocol.interpret(HTTPResponse(status: 503), now: now) else { return #expect(Bool(false)) }
    }

    @Test("Strava's 429: wait to the next quarter hour, or to midnight UTC when the day's limit is used up")
    func stravaRateLimit() {
        let quarter = HTTPResponse(status: 429, headers: ["x-ratelimit-limit": "100,1000", "x-ratelimit-usage": "101,150"])
        // 20:26:40 → 20:30:00, and a second to spare.
        #expect(StravaProtocol.rateLimitWait(quarter, now: now) == 201)
        let daily = HTTPResponse(status: 429, headers: ["x-ratelimit-limit": "100,1000", "x-ratelimit-usage": "50,1000"])
        #expect(StravaProtocol.rateLimitWait(daily, now: now) == Double(86_400 - 1_780_000_000 % 86_400 + 1))
        guard case .retry(let after?, _) = StravaProtocol.interpret(quarter, now: now) else { return #expect(Bool(false)) }
        #expect(after == 201)
        // An answer that went through but used the last request of a window: the next waits for it too.
        #expect(StravaProtocol.limitReached(HTTPResponse(status: 201, headers: ["x-ratelimit-limit": "100,1000", "x-ratelimit-usage": "100,150"])))
        #expect(!StravaProtocol.limitReached(HTTPResponse(status: 201, headers: ["x-ratelimit-limit": "100,1000", "x-ratelimit-usage": "99,150"])))
        #expect(!StravaProtocol.limitReached(HTTPResponse(status: 201)))
    }

    @Test("Strava's read limit counts the polls: used up, the next poll waits for its window; an upload does not count against it")
    func stravaReadLimit() {
        let poll = HTTPResponse(status: 200, headers: ["x-ratelimit-limit": "200,2000", "x-ratelimit-usage": "20,300",
                                                       "x-readratelimit-limit": "100,1000", "x-readratelimit-usage": "100,300"])
        #expect(StravaProtocol.limitReached(poll, for: .reads) && !StravaProtocol.limitReached(poll))
        #expect(StravaProtocol.rateLimitWait(poll, now: now, for: .reads) == 201)
        let day = HTTPResponse(status: 429, headers: ["x-ratelimit-limit": "200,2000", "x-ratelimit-usage": "20,300",
                                                      "x-readratelimit-limit": "100,1000", "x-readratelimit-usage": "30,1000"])
        #expect(StravaProtocol.rateLimitWait(day, now: now, for: .reads) == Double(86_400 - 1_780_000_000 % 86_400 + 1))
        guard case .retry(let after?, _) = StravaProtocol.interpret(day, now: now, for: .reads) else { return #expect(Bool(false)) }
        #expect(after == Double(86_400 - 1_780_000_000 % 86_400 + 1))
        // An upload's answer carries an empty read usage (",").
        let upload = HTTPResponse(status: 201, headers: ["x-ratelimit-limit": "200,2000", "x-ratelimit-usage": "21,301",
                                                         "x-readratelimit-limit": "100,1000", "x-readratelimit-usage": ","])
        #expect(!StravaProtocol.limitReached(upload, for: .reads))
    }

    @Test("Strava's polls back off from 5 s to five minutes and end after a stated number")
    func stravaPolls() {
        #expect((0...8).map { StravaProtocol.pollDelay(polls: $0) } == [5, 5, 10, 20, 40, 80, 160, 300, 300])
        let total = (0..<StravaProtocol.maximumPolls).map { StravaProtocol.pollDelay(polls: $0) }.reduce(0, +)
        #expect(total > 3600 && total < 5400, "\(total)")
        // The upload's answer, then the questions: each one later than the last, until it is given up.
        var job = UploadJob(ride: 3, service: .strava)
        job.state = .uploading
        job.attempts = 4 // failed attempts before the upload went through
        var waits: [Double] = []
        for _ in 0..<StravaProtocol.maximumPolls {
            job = job.processing(uploadID: "5001", at: now)
            waits.append((job.nextAttempt ?? now) - now)
        }
        #expect(job.state == .processing && job.attempts == StravaProtocol.maximumPolls - 1 && waits.first == 5 && waits.last == 300)
        job = job.processing(uploadID: "5001", at: now)
        #expect(job.state == .failed && job.nextAttempt == nil && job.detail?.contains("ridegate upload retry 3") == true, "\(job)")
    }

    @Test("Strava's tokens: read from an answer or the file, written back the same; expired a minute early")
    func stravaToken() throws {
        let answer = #"{"token_type":"Bearer","expires_at":1780003600,"expires_in":3600,"refresh_token":"r1","access_token":"a1","athlete":{"id":42}}"#
        let token = try #require(StravaToken(answer: answer, now: now))
        #expect(token == StravaToken(accessToken: "a1", refreshToken: "r1", expiresAt: Timestamp(secondsSince1970: 1_780_003_600), athleteID: "42"))
        #expect(StravaToken(answer: token.fileText, now: now) == token)
        #expect(token.isValid(at: now) && !token.isValid(at: now + 3560))
        #expect(StravaToken(answer: #"{"access_token":"a"}"#, now: now) == nil)
        #expect(StravaToken(answer: "", now: now) == nil)
        let refused = StravaProtocol.interpretToken(
            HTTPResponse(
                status: 400, body: #"{"message":"Bad Request","errors":[{"resource":"RefreshToken","field":"refresh_token","code":"invalid"}]}"#),
            now: now)
        guard case .refused(let reason) = refused else { return #expect(Bool(false)) }
        #expect(reason.contains("RefreshToken refresh_token invalid"))
    }

    @Test("The code the rider pastes: the code, or the address the browser ended at")
    func pastedCode() {
        #expect(StravaProtocol.code(fromPasted: "abc123\n") == "abc123")
        #expect(StravaProtocol.code(fromPasted: "http://localhost/exchange_token?state=&code=abc123&scope=read,activity:write") == "abc123")
        #expect(StravaProtocol.code(fromPasted: "http://localhost/exchange_token?state=&error=access_denied") == nil)
        #expect(StravaProtocol.code(fromPasted: "") == nil)
        #expect(StravaProtocol.code(fromPasted: "a b;c") == nil)
        // What the athlete left ticked comes back in the address.
        #expect(StravaProtocol.grantedScopes(fromPasted: "http://localhost/exchange_token?state=&code=abc123&scope=read,activity:write") == ["read", "activity:write"])
        #expect(StravaProtocol.grantedScopes(fromPasted: "http://localhost/exchange_token?state=&code=abc123&scope=read") == ["read"])
        #expect(StravaProtocol.grantedScopes(fromPasted: "http://localhost/exchange_token?code=abc&scope=read%2Cactivity%3Awrite") == ["read", "activity:write"])
        #expect(StravaProtocol.grantedScopes(fromPasted: "abc123") == nil)
        #expect(StravaProtocol.authorizeURL(baseURL: "https://www.strava.com", clientID: "12345").contains("client_id=12345&response_type=code&redirect_uri=http://localhost/exchange_token"))
    }

    @Test("The backoff: 30 s doubling to an hour, within ±25 %")
    func backoff() {
        #expect(UploadBackoff.delay(attempts: 1, random: 0.5) == 30)
        #expect(UploadBackoff.delay(attempts: 3, random: 0.5) == 120)
        #expect(UploadBackoff.delay(attempts: 40, random: 0.5) == 3600)
        #expect(UploadBackoff.delay(attempts: 1, random: 0) == 22.5 && UploadBackoff.delay(attempts: 1, random: 0.999_999) < 37.5)
    }

    @Test("A ride's uploads in one word; an upload cut off at a start is sent again")
    func overall() {
        var a = UploadJob(ride: 1, service: .intervalsICU), b = UploadJob(ride: 1, service: .strava)
        #expect(UploadJob.overallState([]) == "none" && UploadJob.overallState([a, b]) == "queued")
        a.state = .done
        b.state = .processing
        #expect(UploadJob.overallState([a, b]) == "uploading")
        b.state = .done
        #expect(UploadJob.overallState([a, b]) == "done")
        b.state = .failed
        #expect(UploadJob.overallState([a, b]) == "failed")
        b.state = .uploading
        #expect(b.resumed().state == .queued)
        b.state = .processing
        #expect(b.resumed().state == .processing)
        // Due when its time has come, or when it lies further off than any wait (the clock went back).
        b.nextAttempt = now + 60
        #expect(!b.isDue(at: now) && b.isDue(at: now + 60) && b.isDue(at: now + (60 - UploadJob.longestWait - 1)))
    }

    func config(_ text: String) -> Result<GatewayConfig.Upload, ConfigError> {
        do throws(ConfigError) {
            return .success(try ConfigDocument.parse(Array(text.utf8), file: "c.toml").upload)
        } catch {
            return .failure(error)
        }
    }

    @Test("[upload.*]: both sites read; a base URL over plain http only to loopback; each mistake names the key and the fix")
    func configuration() throws {
        let both = try config("""
            [upload.intervals_icu]
            api_key_file = "/etc/ridegate/intervals-icu.key"
            athlete_id = "i123456"
            [upload.strava]
            token_file = "/var/lib/ridegate/strava.token"
            client_id = "12345"
            client_secret_file = "/etc/ridegate/strava-client.secret"
            base_url = "http://127.0.0.1:8443/"
            """).get()
        #expect(both.services == [.intervalsICU, .strava])
        #expect(both.intervalsICU?.baseURL == "https://intervals.icu" && both.intervalsICU?.athleteID == "i123456")
        #expect(both.strava?.baseURL == "http://127.0.0.1:8443")
        #expect(try config("").get().services.isEmpty)
        let mistakes = [
            ("[upload.intervals_icu]\n", "upload.intervals_icu.api_key_file: is needed"),
            ("[upload.intervals_icu]\napi_key_file = \"k\"\n", "must be an absolute path"),
            ("[upload.intervals_icu]\napi_key_file = \"/k\"\nathlete_id = \"bob\"\n", "is not an athlete id"),
            ("[upload.intervals_icu]\napi_key_file = \"/k\"\nbase_url = \"http://intervals.icu\"\n", "plain http:// only to this machine"),
            ("[upload.intervals_icu]\napi_key_file = \"/k\"\nbase_url = \"ftp://x\"\n", "use an https:// address"),
            ("[upload.strava]\ntoken_file = \"/t\"\nclient_secret_file = \"/s\"\n", "upload.strava.client_id: is needed"),
            ("[upload.strava]\ntoken_file = \"/t\"\nclient_id = \"12345\"\nclient_secret_file = \"/s\"\nsecret = \"x\"\n", "upload.strava.secret"),
            ("[upload.garmin]\n", "upload.garmin"),
        ]
        for (text, says) in mistakes {
            guard case .failure(let error) = config(text) else {
                Issue.record("accepted: \(text)")
                continue
            }
            #expect(error.description.contains(says), "\(error)")
        }
    }
}
