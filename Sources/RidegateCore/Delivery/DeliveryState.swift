/// The store-and-forward rules of the MQTT connection, with neither the network nor the spool: what goes
/// out at once, what waits behind a backlog being replayed, what the broker's acknowledgement retires, and
/// which readings are marked `replayed`. The MQTT adapter feeds it the connection's events and does what it
/// answers; every rule here is testable without a broker.
///
/// Readings are stored before they are sent (at least once). After each connect everything still stored is
/// replayed oldest first, at most `replayWindow` in flight, paced by acknowledgements; readings stored
/// meanwhile wait behind the backlog, so each topic stays in order. Readings stored before the connect
/// are `replayed`; later ones are live. Retained state is last-value-wins and sent again on each connect.
public struct DeliveryState: Sendable {
    /// Most stored readings in flight at once while replaying.
    public let replayWindow: Int

    /// Message id of a send in flight → the stored reading it carries.
    private var inFlight: [Int32: Int64] = [:]
    private var inFlightIDs: Set<Int64> = []
    /// The newest stored id handed out by the replay so far.
    private var replayCursor: Int64 = 0
    /// Readings stored up to this id (when the connection came up) are the backlog: marked replayed.
    private var backlogEnd: Int64 = 0
    /// The newest retained publication per topic, sent again on every connect.
    private var retained: [String: Publication] = [:]

    /// True from the connect until the backlog is empty again.
    public private(set) var replaying = false
    /// Connected, as far as delivery is concerned.
    public private(set) var online = false
    /// Connections made (for `health`'s `mqtt_connects`).
    public private(set) var connects = 0
    /// Backlog readings sent marked `replayed` (for `health`'s `replayed`).
    public private(set) var replayedCount = 0

    public init(replayWindow: Int) {
        self.replayWindow = max(1, replayWindow)
    }

    /// Keeps a retained publication (the newest per topic wins) to send again after each connect.
    public mutating func keepRetained(_ publication: Publication) {
        retained[publication.topic] = publication
    }

    /// The connection came up; `newestStoredID` is the spool's newest id (0 when empty). Answers the
    /// retained publications to send again; the replay of the backlog starts (see `replayRequest`).
    public mutating func connected(newestStoredID: Int64) -> [Publication] {
        connects += 1
        // Nothing in flight survives a connection: everything still stored is sent again, oldest first.
        inFlight.removeAll()
        inFlightIDs.removeAll()
        replayCursor = 0
        backlogEnd = newestStoredID
        replaying = true
        online = true
        return retained.keys.sorted().compactMap { retained[$0] }
    }

    public mutating func disconnected() {
        online = false
    }

    /// Home Assistant's discovery configs (the retained publications with absolute topics), announced
    /// again when Home Assistant says it is online.
    public var discoveryAnnouncements: [Publication] {
        retained.keys.sorted().compactMap { retained[$0] }.filter(\.absolute)
    }

    /// Whether a reading just stored goes out now; otherwise the replay reaches it in turn.
    public var sendsNewReadingsAtOnce: Bool { online && !replaying }

    /// A stored reading was handed to the network with this message id.
    public mutating func sent(messageID: Int32, storedID: Int64) {
        inFlight[messageID] = storedID
        inFlightIDs.insert(storedID)
    }

    /// The broker acknowledged a message: the stored reading it retires (to remove from the spool), or nil
    /// for a message that was not a stored reading (retained state, a duplicate acknowledgement).
    public mutating func acknowledged(messageID: Int32) -> Int64? {
        guard let id = inFlight.removeValue(forKey: messageID) else { return nil }
        inFlightIDs.remove(id)
        return id
    }

    /// The part of the spool the replay needs next (readings after `after`, at most `limit`), or nil when
    /// not replaying or the window is full.
    public var replayRequest: (after: Int64, limit: Int)? {
        guard replaying, online else { return nil }
        let room = replayWindow - inFlight.count
        return room > 0 ? (replayCursor, room) : nil
    }

    /// The spool's answer to `replayRequest`: the readings to send, `replayed` marked on the backlog's.
    /// An empty batch means the backlog is delivered and the replay ends.
    public mutating func replay(_ batch: [StoredReading]) -> [StoredReading] {
        guard replaying, online else { return [] }
        guard !batch.isEmpty else {
            replaying = false
            return []
        }
        var toSend: [StoredReading] = []
        for entry in batch {
            replayCursor = max(replayCursor, entry.id)
            // Sent live just before this connection's replay reached it, and not yet acknowledged.
            guard !inFlightIDs.contains(entry.id) else { continue }
            var reading = entry
            if entry.id <= backlogEnd {
                replayedCount += 1
                reading.payload = Self.markedReplayed(entry.payload)
            }
            toSend.append(reading)
        }
        return toSend
    }

    /// A backlog reading's payload with `"replayed":true` added; a payload that is not a JSON object is
    /// sent as it was stored.
    public static func markedReplayed(_ payload: String) -> String {
        guard var json = JSONObjectWriter(extending: payload) else { return payload }
        json.add("replayed", true)
        return json.finish()
    }
}
