/// intervals.icu's upload, as its API documents it (https://intervals.icu/api/v1/docs and the forum's "API
/// Integration Cookbook"): the FIT file posted as multipart form data (`file`) to `/api/v1/athlete/{id}/activities`
/// with HTTP basic authentication, user `API_KEY` and the key as the password; the activity's `name` and
/// `external_id` are URL parameters, as the cookbook shows them. A file it already has is not stored again ("hash of
/// file data is checked"); clients see 201 for a new activity and 200 with the existing one, its id in `id` (or in
/// `activities[0].id`).
public enum IntervalsICUProtocol {
    public static func upload(baseURL: String, athleteID: String, apiKey: String, file: String, fileName: String,
                              rideName: String, externalID: String) -> HTTPRequest {
        let query = [("name", rideName), ("external_id", externalID)].map { "\($0.0)=\(HTTPRequest.formEncoded($0.1))" }.joined(separator: "&")
        return HTTPRequest(method: .post, url: "\(baseURL)/api/v1/athlete/\(athleteID)/activities?\(query)", headers: ["Accept: application/json"],
                           body: .multipart([.file(name: "file", path: file, fileName: fileName, contentType: "application/octet-stream")]),
                           basicAuth: (user: "API_KEY", password: apiKey))
    }

    public static func activityURL(baseURL: String, activityID: String) -> String {
        "\(baseURL)/activities/\(activityID)"
    }

    public static func interpret(_ response: HTTPResponse) -> UploadVerdict {
        let said = UploadAnswer.message(response.body)
        switch response.status {
        case 200, 201:
            let answer = UploadAnswer.object(response.body)
            guard let id = UploadAnswer.identifier(answer?["id"]) ?? UploadAnswer.identifier(answer?["activities"]?.array?.first?["id"]) else {
                return .retry(after: nil, reason: "intervals.icu answered \(response.status) without an activity id")
            }
            return .done(activityID: id, duplicate: response.status == 200)
        case 401:
            return .failed(reason: "intervals.icu refused the API key (HTTP 401): check the key in upload.intervals_icu.api_key_file (Settings → Developer Settings)")
        case 403:
            return .failed(reason: "intervals.icu does not let this key upload for that athlete (HTTP 403): check upload.intervals_icu.athlete_id")
        case 429:
            return .retry(after: UploadAnswer.retryAfter(response) ?? 60, reason: "intervals.icu asks to slow down (HTTP 429)")
        case 400, 404, 413, 415, 422:
            return .failed(reason: "intervals.icu refused the file (HTTP \(response.status)\(said.map { ": \($0)" } ?? ""))")
        default:
            return .retry(after: UploadAnswer.retryAfter(response), reason: "intervals.icu answered HTTP \(response.status)\(said.map { ": \($0)" } ?? "")")
        }
    }
}

/// Reading the sites' JSON answers, which arrive from the network: anything may be there.
enum UploadAnswer {
    static func object(_ body: String) -> JSONValue? {
        guard let value = try? JSONValue(parsing: body), case .object = value else { return nil } // not JSON: nothing to read
        return value
    }

    /// A string or integer member as text ("i1001", 9001).
    static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s) where !s.isEmpty && s.utf8.count <= 64 && s.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }): s
        case .number(let n) where n >= 0 && n < 1e18 && n == n.rounded(): String(Int64(n))
        default: nil
        }
    }

    /// What the site said went wrong, short: `error`, `message`, or the first of `errors`.
    static func message(_ body: String) -> String? {
        guard let json = object(body) else { return nil }
        var parts: [String] = []
        for key in ["message", "error"] { if let text = json[key]?.string, !text.isEmpty { parts.append(text) } }
        if let first = json["errors"]?.array?.first {
            let detail = ["resource", "field", "code"].compactMap { first[$0]?.string }.joined(separator: " ")
            if !detail.isEmpty { parts.append(detail) }
        }
        let text = parts.joined(separator: ": ")
        return text.isEmpty ? nil : String(text.prefix(200))
    }

    /// `Retry-After` in seconds (a date form is not used by these sites).
    static func retryAfter(_ response: HTTPResponse) -> Double? {
        guard let text = response.headers["retry-after"], let seconds = Double(text), seconds >= 0, seconds <= 86_400 else { return nil }
        return seconds
    }
}
