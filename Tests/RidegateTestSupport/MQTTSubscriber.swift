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

    private let process = Process()
    private let lock = NSCondition()
    private var received: [Message] = []
    private var partial = Data()

    public init(port: Int, topic: String = "#", extraArguments: [String] = []) throws {
        process.executableURL = try Executables.find("mosquitto_sub", hint: "apt-get install mosquitto-clients")
        process.arguments = ["-h", "127.0.0.1", "-p", String(port), "-v", "-t", topic] + extraArguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            self?.consume(handle.availableData)
        }
        try process.run()
    }

    deinit { stop() }

    private func consume(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        partial.append(data)
        while let newline = partial.firstIndex(of: 0x0A) {
            let line = String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)
            partial.removeSubrange(partial.startIndex...newline)
            let space = line.firstIndex(of: " ") ?? line.endIndex
            received.append(Message(topic: String(line[..<space]),
                                    payload: space < line.endIndex ? String(line[line.index(after: space)...]) : ""))
        }
        lock.broadcast()
    }

    public var messages: [Message] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Blocks until `condition` holds over the messages so far, or `timeout` seconds pass. Returns the
    /// messages either way, for the assertion to inspect.
    @discardableResult
    public func wait(timeout: TimeInterval, until condition: ([Message]) -> Bool) -> [Message] {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !condition(received) {
            if !lock.wait(until: deadline) { break }
        }
        return received
    }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
