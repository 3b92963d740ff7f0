/// `[upload.intervals_icu]` and `[upload.strava]`: the training sites each finished ride is uploaded to.
extension GatewayConfig {
    public struct Upload: Sendable, Equatable {
        public var intervalsICU: IntervalsICU?
        public var strava: Strava?

        public var services: [UploadService] {
            (intervalsICU == nil ? [] : [.intervalsICU]) + (strava == nil ? [] : [.strava])
        }
    }

    public struct IntervalsICU: Sendable, Equatable {
        public var apiKeyFile: String
        /// "i123456", or "0": the key's own athlete.
        public var athleteID = "0"
        public var baseURL = "https://intervals.icu"
        /// The CA that signed a self-hosted site's certificate (nil: the system's CAs).
        public var caFile: String?
    }

    public struct Strava: Sendable, Equatable {
        public var tokenFile: String
        public var clientID: String
        public var clientSecretFile: String
        public var baseURL = "https://www.strava.com"
        public var caFile: String?
    }

    static func upload(_ table: ConfigTableReader) throws(ConfigError) -> Upload {
        var u = table
        var upload = Upload()
        if u.table["intervals_icu"] != nil { upload.intervalsICU = try intervalsICU(try u.subtable("intervals_icu")) }
        if u.table["strava"] != nil { upload.strava = try strava(try u.subtable("strava")) }
        try u.finish()
        return upload
    }

    static func intervalsICU(_ table: ConfigTableReader) throws(ConfigError) -> IntervalsICU {
        var t = table
        var site = IntervalsICU(apiKeyFile: try requiredPath(&t, "api_key_file", example: "/etc/ridegate/intervals-icu.key"))
        site.athleteID = try t.string("athlete_id", default: site.athleteID, maxBytes: 32)
        let digits = site.athleteID.drop { $0 == "i" }
        guard site.athleteID == "0" || (!digits.isEmpty && digits.allSatisfy(\.isASCIIDigit) && site.athleteID.count - digits.count <= 1) else {
            throw t.error("athlete_id", t.table["athlete_id"], "\"\(site.athleteID)\" is not an athlete id; use yours as intervals.icu shows it under Settings (e.g. \"i123456\"), or \"0\" for the key's own athlete")
        }
        site.baseURL = try baseURL(&t, default: site.baseURL)
        site.caFile = try t.optionalString("ca_file")
        try t.finish()
        return site
    }

    static func strava(_ table: ConfigTableReader) throws(ConfigError) -> Strava {
        var t = table
        let tokenFile = try requiredPath(&t, "token_file", example: "/var/lib/ridegate/strava.token")
        guard let clientID = try t.optionalString("client_id", maxBytes: 20), !clientID.isEmpty, clientID.allSatisfy(\.isASCIIDigit) else {
            throw t.error("client_id", t.table["client_id"], "is needed, as digits: the Client ID of your API application at https://www.strava.com/settings/api")
        }
        var site = Strava(tokenFile: tokenFile, clientID: clientID,
                          clientSecretFile: try requiredPath(&t, "client_secret_file", example: "/etc/ridegate/strava-client.secret"))
        site.baseURL = try baseURL(&t, default: site.baseURL)
        site.caFile = try t.optionalString("ca_file")
        try t.finish()
        return site
    }

    private static func requiredPath(_ t: inout ConfigTableReader, _ key: String, example: String) throws(ConfigError) -> String {
        guard let path = try t.optionalString(key) else { throw t.error(key, nil, "is needed, e.g. \(key) = \"\(example)\"") }
        guard path.hasPrefix("/") else { throw t.error(key, t.table[key], "\"\(path)\" must be an absolute path, e.g. \"\(example)\"") }
        return path
    }

    /// A site's address: https, or plain http to this machine only (a test or a self-hosted site on loopback).
    private static func baseURL(_ t: inout ConfigTableReader, default value: String) throws(ConfigError) -> String {
        let url = try t.string("base_url", default: value, maxBytes: 512)
        guard let problem = UploadAddress.problem(url) else { return url.hasSuffix("/") ? String(url.dropLast()) : url }
        throw t.error("base_url", t.table["base_url"], "\"\(url)\": \(problem)")
    }
}

/// What an upload's base URL may be.
public enum UploadAddress {
    /// Why `url` cannot be a site's base URL, or nil.
    public static func problem(_ url: String) -> String? {
        let https = url.hasPrefix("https://"), http = url.hasPrefix("http://")
        guard https || http else { return "use an https:// address, e.g. \"https://intervals.icu\"" }
        let rest = url.dropFirst(https ? 8 : 7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains(" ") else { return "no host in it; use e.g. \"https://intervals.icu\"" }
        guard http else { return nil }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }.dropFirst()) : String(authority.prefix { $0 != ":" })
        guard host == "localhost" || host == "::1" || host.hasPrefix("127.") else {
            return "plain http:// only to this machine (127.0.0.1, ::1, localhost): a ride and its key must not cross a network unencrypted; use https://"
        }
        return nil
    }
}
