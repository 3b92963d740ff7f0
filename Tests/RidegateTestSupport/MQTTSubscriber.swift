import Foundation

/// A real MQTT subscriber (`mosquitto_sub -v`), collecting every message it receives. Tests wait for the
/// messages they need instead of sleeping.
public final class MQTTSubscriber: @unchecked Sendable {
    public struct Message: Sendable, CustomStringConvertible {
        public var topic: String
        public var payload: String
        public var description: String { "\(topic) \(payload)" }

        /// The payload as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any] ?? [:]
        }
    }

    private let process: ChildProcess

    /// `messagesPerSecond`: a subscriber that handles at most that many messages a second (it stops reading,
    /// and acknowledging, while it is behind; the broker queues the rest for it).
    public init(port: Int, topic: String = "#", extraArguments: [String] = [], host: String = "127.0.0.1",
                messagesPerSecond: Double? = nil) throws {
        let executable = try Executables.find("mosquitto_sub", hint: "apt-get install mosquitto-clients")
        process = try ChildProcess(executable.path, ["-h", host, "-p", String(port), "-v", "-t", topic] + extraArguments,
                                   captureOutput: true, linesPerSecond: messagesPerSecond)
    }

    deinit { process.terminateInBackground() }

    private static func parse(_ line: String) -> Message {
        let space = line.firstIndex(of: " ") ?? line.endIndex
        let payload = space < line.endIndex ? String(line[line.index(after: space)...]) : ""
        // mosquitto_sub -v prints an empty payload (a removed retained config) as "(null)".
        return Message(topic: String(line[..<space]), payload: payload == "(null)" ? "" : payload)
    }

    /// The retained messages the broker holds under `topic` now (what a subscriber arriving later sees).
    public static func retained(port: Int, topic: String, host: String = "127.0.0.1", extraArguments: [String] = []) async throws -> [Message] {
        let executable = try Executables.find("mosquitto_sub", hint: "apt-get install mosquitto-clients")
        // --retained-only ends at the first live message; -W 2 ends it when nothing more is retained.
        let process = try ChildProcess(executable.path, ["-h", host, "-p", String(port), "-v", "-t", topic, "--retained-only", "-W", "2"] + extraArguments,
                                       captureOutput: true)
        // -W's "Timed out" goes to stderr, which ChildProcess interleaves with the messages.
        return await process.waitForAllOutput(timeout: TestTime.seconds(10)).filter { $0 != "Timed out" }.map(parse)
    }

    public var messages: [Message] { process.lines.map(Self.parse) }

    /// Waits until `condition` holds over the messages so far, or `timeout` seconds pass. Returns the
    /// messages either way, for the assertion to inspect.
    @discardableResult
    public func wait(timeout: TimeInterval, until condition: @escaping ([Message]) -> Bool) async -> [Message] {
        await process.waitForOutput(timeout: timeout) { condition($0.map(Self.parse)) }.map(Self.parse)
    }

    public func stop() async {
        await process.terminate()
    }

    /// Stops it and returns every message it printed, those still in its pipe included (a slow subscriber's).
    public func stopAndCollect() async -> [Message] {
        await process.terminate()
        return await process.waitForAllOutput(timeout: TestTime.seconds(20)).map(Self.parse)
    }
}
