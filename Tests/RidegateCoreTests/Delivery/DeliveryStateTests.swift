import RidegateCore
import Testing

@Suite struct DeliveryStateTests {
    static func reading(_ id: Int64, _ payload: String = #"{"bpm":70}"#) -> StoredReading {
        StoredReading(id: id, topic: "heart_rate", payload: payload, qos: 1)
    }

    @Test("Nothing goes out before the connection; after it, the backlog replays before new readings go out at once")
    func backlogBeforeLive() {
        var d = DeliveryState(replayWindow: 10)
        #expect(!d.sendsNewReadingsAtOnce)
        #expect(d.replayRequest == nil)
        _ = d.connected(newestStoredID: 3)
        #expect(!d.sendsNewReadingsAtOnce, "a new reading must wait behind the backlog")
        #expect(d.replayRequest! == (0, 10))
        let sent = d.replay([Self.reading(1), Self.reading(2), Self.reading(3), Self.reading(4)])
        #expect(sent.map(\.id) == [1, 2, 3, 4])
        #expect(sent.prefix(3).allSatisfy { $0.payload == #"{"bpm":70,"replayed":true}"# })
        #expect(sent[3].payload == #"{"bpm":70}"#, "stored after the connect: live, not replayed")
        #expect(d.replayedCount == 3)
        #expect(d.replayRequest! == (4, 10))
        #expect(d.replay([]).isEmpty)
        #expect(!d.replaying)
        #expect(d.sendsNewReadingsAtOnce)
    }

    @Test("The replay keeps at most the window in flight; each acknowledgement retires one stored reading and makes room")
    func windowAndAcknowledgements() {
        var d = DeliveryState(replayWindow: 2)
        _ = d.connected(newestStoredID: 5)
        for reading in d.replay([Self.reading(1), Self.reading(2)]) {
            d.sent(messageID: Int32(reading.id) + 100, storedID: reading.id)
        }
        #expect(d.replayRequest == nil, "window full")
        #expect(d.acknowledged(messageID: 101) == 1)
        #expect(d.acknowledged(messageID: 101) == nil, "a duplicate acknowledgement retires nothing")
        #expect(d.acknowledged(messageID: 7) == nil, "not a stored reading (retained state)")
        #expect(d.replayRequest! == (2, 1))
    }

    @Test("A reading sent live and still unacknowledged is not sent twice by the replay; a reconnect starts over")
    func inFlightNotDuplicatedAndReconnectReplaysAll() {
        var d = DeliveryState(replayWindow: 10)
        _ = d.connected(newestStoredID: 0)
        _ = d.replay([])
        d.sent(messageID: 1, storedID: 1)
        d.disconnected()
        #expect(!d.sendsNewReadingsAtOnce)
        #expect(d.replayRequest == nil)
        #expect(d.replay([Self.reading(1)]).isEmpty, "offline: nothing to send")
        _ = d.connected(newestStoredID: 1)
        #expect(d.replayRequest! == (0, 10), "everything unacknowledged is replayed after a reconnect")
        #expect(d.replay([Self.reading(1)]).map(\.id) == [1])
        #expect(d.connects == 2)
        // Within one connection, the replay skips what is in flight.
        d.sent(messageID: 9, storedID: 2)
        #expect(d.replay([Self.reading(2)]).isEmpty)
    }

    @Test("Retained state: newest per topic wins, sent again on each connect; discovery configs are the absolute ones")
    func retained() {
        var d = DeliveryState(replayWindow: 10)
        d.keepRetained(Publication(topic: "sun", payload: "1", retain: true))
        d.keepRetained(Publication(topic: "sun", payload: "2", retain: true))
        d.keepRetained(Publication(topic: "homeassistant/sensor/x/config", payload: "{}", retain: true, absolute: true))
        let again = d.connected(newestStoredID: 0)
        #expect(again.map(\.payload).sorted() == ["2", "{}"])
        #expect(d.discoveryAnnouncements.map(\.topic) == ["homeassistant/sensor/x/config"])
    }

    @Test("Only JSON objects are marked replayed; other payloads go as they were stored")
    func marking() {
        #expect(DeliveryState.markedReplayed(#"{"a":1}"#) == #"{"a":1,"replayed":true}"#)
        #expect(DeliveryState.markedReplayed("{}") == #"{"replayed":true}"#)
        #expect(DeliveryState.markedReplayed("42") == "42")
    }
}
