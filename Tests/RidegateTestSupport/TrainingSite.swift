import Foundation

/// A local HTTPS server that answers as intervals.icu or Strava document their APIs (Tests/Servers/
/// training_sites.py), with a certificate from a CA the test made: what it was sent and the activities it made
/// are files in `directory`, and faults to inject are queued in its `faults.json`.
public final class TrainingSite: @unchecked Sendable {
    public enum Service: String, Sendable {
        case intervalsICU = "intervals_icu"
        case strava
    }

    public let service: Service
    public let port: Int
    public let directory: String
    public let certificates: TestCertificates
    private let arguments: [String]
    private var process: ChildProcess?

    /// The site's address in a config (the certificate names localhost).
    public var baseURL: String { "https://localhost:\(port)" }

    /// A site on `port` (nil: a free one), not started yet: `start()` brings it up (the network appears).
    public init(_ service: Service, certificates: TestCertificates, directory: String, port: Int? = nil, arguments: [String]) throws {
        self.service = service
        self.certificates = certificates
        self.directory = directory
        self.arguments = arguments
        self.port = try port ?? FreePort.loopback()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Starts it and waits until it listens.
    public func start() async throws {
        let script = Fixtures.repositoryRoot + "/Tests/Servers/training_sites.py"
        let child = try ChildProcess("/usr/bin/python3", [script, "--service", service.rawValue, "--cert", certificates.serverCertificate,
                                                          "--key", certificates.serverKey, "--dir", directory, "--port", String(port)] + arguments,
                                     captureOutput: true)
        let lines = await child.waitForOutput(timeout: TestTime.seconds(20)) { $0.contains { $0.hasPrefix("PORT ") } }
        guard lines.contains(where: { $0.hasPrefix("PORT ") }) else {
            await child.terminate()
            throw ChildProcessError(message: "the \(service.rawValue) test site did not start: \(lines.suffix(5))")
        }
        process = child
    }

    /// Stops it (the network goes away); what it kept stays in `directory`.
    public func stop() async {
        let stopping = process
        process = nil
        await stopping?.terminate()
    }

    deinit { process?.terminateInBackground() }

    /// Faults for the next requests of each kind ("upload", "poll", "token"): "500", "429", "expired", "drop",
    /// "drop_early", "hold:S", "refuse".
    public func queueFaults(_ faults: [String: [String]]) throws {
        let data = try JSONSerialization.data(withJSONObject: faults)
        try data.write(to: URL(fileURLWithPath: directory + "/faults.json"), options: .atomic)
    }

    /// The activities it made: id, sha256, name, external_id.
    public var activities: [[String: Any]] { Self.jsonLines(directory + "/activities.jsonl") }
    /// Every request: method, path, status (nil: no answer sent), bytes, fault.
    public var requests: [[String: Any]] { Self.jsonLines(directory + "/requests.jsonl") }
    /// "upload_received" (with the file's sha256), "holding".
    public var events: [[String: Any]] { Self.jsonLines(directory + "/events.jsonl") }

    public func activityFile(_ id: String) -> String { "\(directory)/activities/\(id).fit" }

    /// Waits until `condition` holds for the requests it saw.
    public func waitFor(timeout: Double, _ what: String, _ condition: (TrainingSite) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(TestTime.seconds(timeout))
        while !condition(self) {
            guard Date() < deadline else {
                throw ChildProcessError(message: "the \(service.rawValue) site never saw \(what); requests: \(requests.suffix(6))")
            }
            try await TestTime.pause(0.1)
        }
    }

    static func jsonLines(_ path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

/// A CA and a server certificate for localhost and 127.0.0.1 signed by it (openssl).
public struct TestCertificates: Sendable {
    public let caCertificate: String
    public let serverCertificate: String
    public let serverKey: String

    public static func make(in dir: String) async throws -> TestCertificates {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try await run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=ridegate test CA",
                       "-keyout", "\(dir)/ca.key", "-out", "\(dir)/ca.crt"])
        try await run(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "\(dir)/server.key", "-out", "\(dir)/server.csr"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: "\(dir)/san.ext", atomically: true, encoding: .utf8)
        try await run(["x509", "-req", "-in", "\(dir)/server.csr", "-CA", "\(dir)/ca.crt", "-CAkey", "\(dir)/ca.key", "-CAcreateserial",
                       "-days", "2", "-extfile", "\(dir)/san.ext", "-out", "\(dir)/server.crt"])
        return TestCertificates(caCertificate: "\(dir)/ca.crt", serverCertificate: "\(dir)/server.crt", serverKey: "\(dir)/server.key")
    }

    private static func run(_ arguments: [String]) async throws {
        let process = try ChildProcess(try Executables.find("openssl", hint: "apt-get install openssl").path, arguments, captureOutput: true)
        guard await process.waitForExit(timeout: 30).flatMap(ChildProcess.exitCode) == 0 else {
            throw ChildProcessError(message: "openssl \(arguments.joined(separator: " ")) failed: \(process.lines.joined(separator: "\n"))")
        }
    }
}
