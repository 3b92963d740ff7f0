/// One HTTP request as the uploads describe it, and what came back: plain data, so the services' rules stay
/// pure and the transfer (libcurl) is an adapter.
public struct HTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    /// One part of a multipart/form-data body: a field, or a file streamed from disk.
    public enum Part: Sendable, Equatable {
        case field(name: String, value: String)
        case file(name: String, path: String, fileName: String, contentType: String)
    }

    public enum Body: Sendable, Equatable {
        case none
        /// application/x-www-form-urlencoded.
        case form([(String, String)])
        case multipart([Part])

        public static func == (a: Body, b: Body) -> Bool {
            switch (a, b) {
            case (.none, .none): true
            case (.form(let x), .form(let y)): x.map { "\($0.0)=\($0.1)" } == y.map { "\($0.0)=\($0.1)" }
            case (.multipart(let x), .multipart(let y)): x == y
            default: false
            }
        }
    }

    public var method: Method
    public var url: String
    public var headers: [String] = []
    public var body: Body = .none
    /// HTTP basic authentication.
    public var basicAuth: (user: String, password: String)?

    public init(method: Method, url: String, headers: [String] = [], body: Body = .none, basicAuth: (user: String, password: String)? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.basicAuth = basicAuth
    }

    /// `application/x-www-form-urlencoded` (a form body, a query's values): unreserved bytes as they are, the rest
    /// percent-encoded.
    public static func formEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.url == b.url && a.headers == b.headers && a.body == b.body
            && a.basicAuth?.user == b.basicAuth?.user && a.basicAuth?.password == b.basicAuth?.password
    }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: String

    public init(status: Int, headers: [String: String] = [:], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why no response came: what the uploader does next depends on which.
public struct HTTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No route, no name, no connection: nothing left the bike.
        case offline
        /// The site's certificate was not trusted (or TLS failed): never retried quietly.
        case tls
        /// The connection broke or went silent after the request began: the site may have kept it.
        case dropped
        /// The file to send could not be read.
        case file
        case other
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
