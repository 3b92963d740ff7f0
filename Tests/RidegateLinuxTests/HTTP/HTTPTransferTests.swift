import Foundation
@testable import RidegateCore
@testable import RidegateLinux
import RidegateTestSupport
import Testing

/// libcurl against a real HTTP server (Python's http.server, which ends every header line in CR LF as RFC 9112
/// says): what the upload rules read of an answer is what the server sent.
@Suite struct HTTPTransferTests {
    /// Answers every GET with 429 and the headers Strava and intervals.icu send when asked to slow down
    /// (Strava's API docs, "Rate Limits": X-RateLimit-Limit and X-RateLimit-Usage as "15-minute,daily").
    static let server = """
        import http.server, sys
        class Answer(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(429)
                self.send_header("Retry-After", "2")
                self.send_header("X-RateLimit-Limit", "200,2000")
                self.send_header("X-RateLimit-Usage", "201,300")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Answer)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    @Test("A header's value arrives without the line's CR LF: Retry-After and Strava's rate limits read as numbers")
    func headersWithoutLineEnds() async throws {
        let server = try ChildProcess("/usr/bin/python3", ["-c", Self.server], captureOutput: true)
        defer { server.terminateInBackground() }
        let said = await server.waitForOutput(timeout: TestTime.seconds(20)) { !$0.isEmpty }
        let port = try #require(said.first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }, "\(said)")
        let transfer = HTTPTransfer(library: try CurlLibrary())
        let result = try await OffThePool.run { transfer.perform(HTTPRequest(method: .get, url: "http://127.0.0.1:\(port)/")) }
        let response = try result.get()
        #expect(response.status == 429)
        #expect(response.headers["retry-after"] == "2")
        #expect(response.headers["x-ratelimit-limit"] == "200,2000")
        #expect(response.headers["x-ratelimit-usage"] == "201,300")
        #expect(UploadAnswer.retryAfter(response) == 2)
    }
}
