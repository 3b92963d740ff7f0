/// The store-and-forward rules of the MQTT connection, with neither the network nor the spool: what goes
/// out at once, what waits behind a backlog being replayed, what the broker's acknowledgement retires, and
/// which readings are marked `replayed`. The MQTT adapter feeds it the connection's events and does what it
/// answers; every rule here is testable without a broker.
///
/// Readings are stored before they are sent (at least once). After each connect everything still stored is
/// replayed oldest first, at most `replayWindow` in flight and at most `replayRate` a second; readings stored
/// meanwhile wait behind the backlog, so each topic stays in order. Readings stored before the connect
/// are `replayed`; later ones are live. Retained state is last-value-wins and sent again on each connect;
/// one-shot publications are sent on each connect until every one is acknowledged, then never again.
///
/// Why a rate: a broker acknowledges as fast as it takes messages in, so a fleet reconnecting after an outage
/// would pour its backlogs into each subscriber's queue at once (mosquitto drops beyond `max_queued_messages`,
/// 1000 by default). Paced, each bike adds at most `replayRate` a second to its live flow: a subscriber with
/// that to spare per bike never holds a queue.
public struct DeliveryState: Sendable {
    /// Most stored readings in flight at once while replaying.
    public let replayWindow: Int
    /// Most backlog readings sent a second (0: as fast as the window allows).
    public let replayRate: Double
    /// Backlog readings the replay may send now, and when that was counted (monotonic seconds); it fills at
    /// `replayRate` up to one batch.
    private var replayAllowance = 0.0
    private var allowanceCountedAt = 0.0
    /// Readings stored while replaying (live ones waiting behind the backlog) and not yet sent by the replay:
    /// each adds one to what it may send, so the backlog goes at `replayRate` on top of the live flow and
    /// the replay catches up however busy the gateway is.
    private var liveAllowance = 0
    /// One-shot publications until each is acknowledged, in order, and the message ids of those in flight.
    private var oneShots: [Publication] = []
    private var oneShotsInFlight: Set<Int32> = []

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

    public init(replayWindow: Int, replayRate: Double = 0) {
        self.replayWindow = max(1, replayWindow)
        self.replayRate = max(0, replayRate)
    }

    /// Readings sent together while paced: a tenth of a second's worth, so a paced replay wakes ten times a second.
    public var replayBatch: Int {
        replayRate > 0 ? Int(rounding: replayRate / 10, within: 1...replayWindow) ?? 1 : replayWindow
    }

    /// Keeps a retained publication (the newest per topic wins) to send again after each connect.
    public mutating func keepRetained(_ publication: Publication) {
        retained[publication.topic] = publication
    }

    /// The connection came up; `newestStoredID` is the spool's newest id (0 when empty). Answers the
    /// retained publications to send again; the replay of the backlog starts (see `replayRequest`).
    /// `now`: monotonic seconds, from which the replay's pace is counted. The one-shot publications come first.
    public mutating func connected(newestStoredID: Int64, at now: Double = 0) -> [Publication] {
        connects += 1
        // Nothing in flight survives a connection: everything still stored is sent again, oldest first.
        inFlight.removeAll()
        inFlightIDs.removeAll()
        oneShotsInFlight.removeAll()
        replayCursor = 0
        backlogEnd = newestStoredID
        replaying = true
        online = true
        replayAllowance = Double(replayBatch) // the first batch at once: a short backlog is not held back
        liveAllowance = 0
        allowanceCountedAt = now
        return oneShots + retained.keys.sorted().compactMap { retained[$0] }
    }

    /// Keeps a one-shot publication until it is acknowledged (see `Publication.oneShot`).
    public mutating func keepOneShot(_ publication: Publication) {
        oneShots.append(publication)
    }

    /// A one-shot publication was handed to the network with this message id.
    public mutating func sentOneShot(messageID: Int32) {
        oneShotsInFlight.insert(messageID)
    }

    /// Whether this message id is a one-shot publication's, in flight.
    public func isOneShot(messageID: Int32) -> Bool {
        oneShotsInFlight.contains(messageID)
    }

    /// The broker answered a one-shot publication (took it or refused it); true when that was the last one:
    /// they are all forgotten.
    public mutating func acknowledgedOneShot(messageID: Int32) -> Bool {
        guard oneShotsInFlight.remove(messageID) != nil, oneShotsInFlight.isEmpty else { return false }
        oneShots.removeAll()
        return true
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

    /// A reading was stored while the replay runs: it waits behind the backlog, and the pace makes room for it.
    public mutating func heldBehindReplay() {
        if replaying, online, replayRate > 0 { liveAllowance += 1 }
    }

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
    /// not replaying, the window is full, or the pace allows less than a batch yet (`secondsUntilReplay`).
    public func replayRequest(at now: Double) -> (after: Int64, limit: Int)? {
        let windowRoom = replayWindow - inFlight.count
        guard replaying, online, windowRoom > 0 else { return nil }
        guard replayRate > 0 else { return (replayCursor, windowRoom) }
        // A hair over, so a timer that fires on the dot is not a rounding error short of its batch.
        let room = min(windowRoom, Int((allowance(at: now) + 1e-6).rounded(.down)))
        return room > 0 && room >= min(replayBatch, windowRoom) ? (replayCursor, room) : nil
    }

    /// How long until the pace allows the next batch, when that is what the replay waits for (not the window).
    public func secondsUntilReplay(at now: Double) -> Double? {
        guard replaying, online, replayRate > 0, inFlight.count < replayWindow, replayRequest(at: now) == nil else { return nil }
        return max(0.001, (Double(replayBatch) - allowance(at: now)) / replayRate)
    }

    /// Only while paced (`replayRate` > 0).
    private func allowance(at now: Double) -> Double {
        min(Double(replayBatch), replayAllowance + max(0, now - allowanceCountedAt) * replayRate) + Double(liveAllowance)
    }

    /// The spool's answer to `replayRequest`: the readings to send, `replayed` marked on the backlog's.
    /// An empty batch, or one short of `asked` (the request's limit), held everything stored: the replay ends
    /// with it, and what is stored next goes out at once.
    public mutating func replay(_ batch: [StoredReading], asked: Int? = nil, at now: Double = 0) -> [StoredReading] {
        guard replaying, online else { return [] }
        if replayRate > 0 {
            let paced = allowance(at: now) - Double(liveAllowance)
            let fromLive = min(liveAllowance, batch.count)
            liveAllowance -= fromLive
            replayAllowance = max(0, paced - Double(batch.count - fromLive))
            allowanceCountedAt = now
        }
        if batch.isEmpty || batch.count < asked ?? 0 { replaying = false }
        guard !batch.isEmpty else { return [] }
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
