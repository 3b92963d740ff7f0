import CCurlShim
import RidegateCore

/// An HTTP request made with libcurl: TLS with the site's certificate verified (against the system's CAs, or
/// `caFile`), HTTPS, or HTTP to loopback, only (the config refuses the rest), no redirects followed.
/// `perform` blocks until the exchange ends or stalls: it runs on a thread of its own (`BlockingThread`), never
/// on the event loop. libcurl sends `Expect: 100-continue` before a body over 1 MiB, so a site that refuses the
/// request does so before the file is sent.
public struct HTTPTransfer: Sendable {
    public let library: CurlLibrary
    public var caFile: String?
    /// A connection that takes longer than this to open is given up.
    public var connectSeconds = 20
    /// A transfer that moves no byte for this long is given up (a bike's Wi-Fi that went out of range).
    public var stallSeconds = 60
    /// The whole exchange at most (a large ride over a slow link).
    public var totalSeconds = 900
    static let largestBody = 262_144

    public init(library: CurlLibrary, caFile: String? = nil) {
        self.library = library
        self.caFile = caFile
    }

    public func perform(_ request: HTTPRequest) -> Result<HTTPResponse, HTTPFailure> {
        let lib = library.handle
        guard let curl = rg_curl_easy_init(lib) else { return .failure(HTTPFailure(.other, "libcurl could not start a transfer")) }
        defer { rg_curl_easy_cleanup(lib, curl) }
        let received = Received()
        let context = Unmanaged.passUnretained(received).toOpaque()
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headerList: UnsafeMutablePointer<curl_slist>?
        var mime: OpaquePointer?
        defer {
            rg_curl_slist_free_all(lib, headerList)
            rg_curl_mime_free(lib, mime)
        }
        let outcome: CURLcode = errorText.withUnsafeMutableBufferPointer { errorBuffer in
            rg_curl_set_pointer(library.handle, curl, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress)
            configure(curl, request, context: context)
            for header in request.headers { headerList = rg_curl_slist_append(lib, headerList, header) }
            if let headerList { rg_curl_set_pointer(library.handle, curl, CURLOPT_HTTPHEADER, headerList) }
            switch request.body {
            case .none:
                break
            case .form(let fields):
                let encoded = fields.map { HTTPRequest.formEncoded($0.0) + "=" + HTTPRequest.formEncoded($0.1) }.joined(separator: "&")
                rg_curl_set_string(library.handle, curl, CURLOPT_COPYPOSTFIELDS, encoded)
            case .multipart(let parts):
                mime = multipart(curl, parts)
                rg_curl_set_pointer(library.handle, curl, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime))
            }
            return rg_curl_easy_perform(lib, curl)
        }
        guard outcome == CURLE_OK else {
            let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let message = detail.isEmpty ? (rg_curl_easy_strerror(lib, outcome).map { String(cString: $0) } ?? "error \(outcome.rawValue)") : detail
            return .failure(HTTPFailure(Self.kind(outcome), message))
        }
        var status = 0
        _ = rg_curl_response_code(lib, curl, &status)
        return .success(HTTPResponse(status: status, headers: received.headers, body: String(decoding: received.body, as: UTF8.self)))
    }

    private func configure(_ curl: UnsafeMutableRawPointer, _ request: HTTPRequest, context: UnsafeMutableRawPointer) {
        rg_curl_set_string(library.handle, curl, CURLOPT_URL, request.url)
        rg_curl_set_string(library.handle, curl, CURLOPT_PROTOCOLS_STR, "https,http")
        rg_curl_set_long(library.handle, curl, CURLOPT_NOSIGNAL, 1) // no SIGALRM for name lookups: this is one thread of several
        rg_curl_set_long(library.handle, curl, CURLOPT_CONNECTTIMEOUT, connectSeconds)
        rg_curl_set_long(library.handle, curl, CURLOPT_LOW_SPEED_LIMIT, 1)
        rg_curl_set_long(library.handle, curl, CURLOPT_LOW_SPEED_TIME, stallSeconds)
        rg_curl_set_long(library.handle, curl, CURLOPT_TIMEOUT, totalSeconds)
        rg_curl_set_string(library.handle, curl, CURLOPT_USERAGENT, "ridegate")
        if let caFile { rg_curl_set_string(library.handle, curl, CURLOPT_CAINFO, caFile) }
        if request.method == .get { rg_curl_set_long(library.handle, curl, CURLOPT_HTTPGET, 1) }
        if let auth = request.basicAuth { // basic: libcurl's default scheme
            rg_curl_set_string(library.handle, curl, CURLOPT_USERNAME, auth.user)
            rg_curl_set_string(library.handle, curl, CURLOPT_PASSWORD, auth.password)
        }
        rg_curl_set_callback(library.handle, curl, CURLOPT_WRITEFUNCTION) { Received.take($0, $1 * $2, $3) { $0.body($1) } }
        rg_curl_set_pointer(library.handle, curl, CURLOPT_WRITEDATA, context)
        rg_curl_set_callback(library.handle, curl, CURLOPT_HEADERFUNCTION) { Received.take($0, $1 * $2, $3) { $0.header($1) } }
        rg_curl_set_pointer(library.handle, curl, CURLOPT_HEADERDATA, context)
    }

    private func multipart(_ curl: UnsafeMutableRawPointer, _ parts: [HTTPRequest.Part]) -> OpaquePointer? {
        let mime = rg_curl_mime_init(library.handle, curl)
        for part in parts {
            switch part {
            case .field(let name, let value):
                _ = rg_curl_mime_add(library.handle, mime, name, value, nil, nil, nil)
            case .file(let name, let path, let fileName, let contentType):
                _ = rg_curl_mime_add(library.handle, mime, name, nil, path, fileName, contentType) // a missing file: the transfer says so
            }
        }
        return mime
    }

    static func kind(_ code: CURLcode) -> HTTPFailure.Kind {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT: .offline
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE: .tls
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_OPERATION_TIMEDOUT: .dropped
        case CURLE_READ_ERROR: .file
        default: .other
        }
    }

    /// What the site sent, bounded: an answer to an upload is a few hundred bytes of JSON.
    private final class Received {
        fileprivate(set) var body: [UInt8] = []
        fileprivate(set) var headers: [String: String] = [:]

        /// A libcurl callback's bytes to `keep` (`context` is the transfer's `Received`); how many were taken.
        static func take(_ data: UnsafeMutablePointer<CChar>?, _ bytes: Int, _ context: UnsafeMutableRawPointer?,
                         _ keep: (Received, UnsafeRawBufferPointer) -> Void) -> Int {
            guard let data, let context else { return 0 }
            keep(Unmanaged<Received>.fromOpaque(context).takeUnretainedValue(), UnsafeRawBufferPointer(start: data, count: bytes))
            return bytes
        }

        func body(_ bytes: UnsafeRawBufferPointer) {
            body += bytes.prefix(max(0, HTTPTransfer.largestBody - body.count))
        }

        func header(_ bytes: UnsafeRawBufferPointer) {
            let line = String(decoding: bytes, as: UTF8.self)
            if line.hasPrefix("HTTP/") { headers = [:] } // a 100 Continue's headers are not the answer's
            guard let colon = line.firstIndex(of: ":"), headers.count < 64 else { return }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingSpaces
        }
    }
}

private extension Substring {
    var trimmingSpaces: String {
        // Swift reads a header line's CR LF as one Character, equal to neither "\r" nor "\n": isNewline is true of it.
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0.isNewline }.reversed())
    }
}
