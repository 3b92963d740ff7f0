/// What `ridegate watch` knows of a running gateway: the newest payload of each of its topics, read from
/// the broker. Payloads that are not JSON objects, or topics it does not show, change nothing (and are
/// counted), so a stranger publishing under the prefix cannot break the view.
public struct WatchState: Sendable {
    /// The newest payload per topic (relative to `<prefix>/<device_id>/`).
    public private(set) var topics: [String: JSONValue] = [:]
    /// `online` / `offline` (retained `status`), nil before it arrives.
    public private(set) var status: String?
    /// Messages that could not be read (not JSON).
    public private(set) var unreadable = 0
    /// The `ts` of the last message that had one.
    public private(set) var latest: Timestamp?

    public init() {}

    /// Takes one message; `topic` is relative to the device's prefix.
    public mutating func receive(topic: String, payload: String) {
        if topic == "status" {
            // An empty payload clears the retained status (the demo does at its stop): the gateway is gone.
            status = payload.isEmpty ? "offline" : payload
            return
        }
        guard let value = try? JSONValue(parsing: payload), case .object = value else {
            unreadable += 1
            return
        }
        topics[topic] = value
        if let ts = value["ts"]?.string.flatMap(Timestamp.init(iso8601:)) { latest = ts }
    }

    /// Heart-rate straps, power meters and speed/cadence sensors with a state, by id (`strap/<id>`, `sensor/<id>`).
    public var sensorTopics: [String] {
        Set(topics.keys.compactMap { key -> String? in
            let parts = key.split(separator: "/")
            guard parts.count >= 3, parts[0] == "strap" || parts[0] == "sensor" else { return nil }
            return parts[0] + "/" + parts[1]
        }).sorted()
    }

    public subscript(topic: String) -> JSONValue? { topics[topic] }
}
