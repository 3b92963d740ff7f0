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
        #expect(d.replayRequest(at: 0) == nil)
        _ = d.connected(newestStoredID: 3)
        #expect(!d.sendsNewReadingsAtOnce, "a new reading must wait behind the backlog")
        #expect(d.replayRequest(at: 0)! == (0, 10))
        let sent = d.replay([Self.reading(1), Self.reading(2), Self.reading(3), Self.reading(4)])
        #expect(sent.map(\.id) == [1, 2, 3, 4])
        #expect(sent.prefix(3).allSatisfy { $0.payload == #"{"bpm":70,"replayed":true}"# })
        #expect(sent[3].payload == #"{"bpm":70}"#, "stored after the connect: live, not replayed")
        #expect(d.replayedCount == 3)
        #expect(d.replayRequest(at: 0)! == (4, 10))
        #expect(d.replay([]).isEmpty)
        #expect(!d.replaying)
        // A batch short of what was asked held everything stored: the replay ends with it.
        var short = DeliveryState(replayWindow: 10)
        _ = short.connected(newestStoredID: 2)
        #expect(short.replay([Self.reading(1), Self.reading(2)], asked: 10).count == 2)
        #expect(!short.replaying && short.sendsNewReadingsAtOnce)
        #expect(d.sendsNewReadingsAtOnce)
    }

    @Test("The replay keeps at most the window in flight; each acknowledgement retires one stored reading and makes room")
    func windowAndAcknowledgements() {
        var d = DeliveryState(replayWindow: 2)
        _ = d.connected(newestStoredID: 5)
        for reading in d.replay([Self.reading(1), Self.reading(2)]) {
            d.sent(messageID: Int32(reading.id) + 100, storedID: reading.id)
        }
        #expect(d.replayRequest(at: 0) == nil, "window full")
        #expect(d.acknowledged(messageID: 101) == 1)
        #expect(d.acknowledged(messageID: 101) == nil, "a duplicate acknowledgement retires nothing")
        #expect(d.acknowledged(messageID: 7) == nil, "not a stored reading (retained state)")
        #expect(d.replayRequest(at: 0)! == (2, 1))
    }

    @Test("A reading sent live and still unacknowledged is not sent twice by the replay; a reconnect starts over")
    func inFlightNotDuplicatedAndReconnectReplaysAll() {
        var d = DeliveryState(replayWindow: 10)
        _ = d.connected(newestStoredID: 0)
        _ = d.replay([])
        d.sent(messageID: 1, storedID: 1)
        d.disconnected()
        #expect(!d.sendsNewReadingsAtOnce)
        #expect(d.replayRequest(at: 0) == nil)
        #expect(d.replay([Self.reading(1)]).isEmpty, "offline: nothing to send")
        _ = d.connected(newestStoredID: 1)
        #expect(d.replayRequest(at: 0)! == (0, 10), "everything unacknowledged is replayed after a reconnect")
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

    @Test("Paced: one batch at the connect, then a tenth of a second's worth at a time, never a burst after a wait")
    func pacedReplay() throws {
        var d = DeliveryState(replayWindow: 100, replayRate: 50)
        _ = d.connected(newestStoredID: 5000, at: 10)
        #expect(d.replayBatch == 5)
        #expect(d.replayRequest(at: 10)! == (0, 5), "a short backlog goes at once")
        #expect(d.replay((1...5).map { Self.reading($0) }, at: 10).count == 5)
        #expect(d.replayRequest(at: 10) == nil)
        #expect(abs((d.secondsUntilReplay(at: 10) ?? 0) - 0.1) < 1e-9)
        #expect(d.replayRequest(at: 10.05) == nil)
        #expect(d.replayRequest(at: 60)! == (5, 5), "however long it waited: one batch")
        // Over ten seconds, acknowledged at once: the rate, not the window.
        var sent = 0
        var next: Int64 = 6
        for step in 0..<1000 {
            let now = 100 + Double(step) / 100
            guard let request = d.replayRequest(at: now) else { continue }
            let batch = (next..<next + Int64(request.limit)).map { Self.reading($0) }
            for reading in d.replay(batch, at: now) {
                d.sent(messageID: Int32(reading.id), storedID: reading.id)
                _ = d.acknowledged(messageID: Int32(reading.id))
            }
            next += Int64(request.limit)
            sent += request.limit
        }
        #expect((495...505).contains(sent), "\(sent) in 10 s at 50 a second")
        // Readings stored meanwhile wait behind the backlog and add to the pace: it catches up however busy.
        for _ in 0..<20 { d.heldBehindReplay() }
        #expect((20...25).contains(d.replayRequest(at: 110.001)?.limit ?? 0))
        // Unpaced (0): the window alone.
        var free = DeliveryState(replayWindow: 100)
        _ = free.connected(newestStoredID: 5000, at: 10)
        #expect(free.replayRequest(at: 10)! == (0, 100))
        #expect(free.secondsUntilReplay(at: 10) == nil)
    }

    @Test("One-shot publications go first on each connect until every one is acknowledged, then never again")
    func oneShots() {
        var d = DeliveryState(replayWindow: 10)
        let clear = Publication(topic: "homeassistant/sensor/x/config", payload: "", retain: true, absolute: true, oneShot: true)
        d.keepOneShot(clear)
        d.keepRetained(Publication(topic: "homeassistant/device/b/config", payload: "{}", retain: true, absolute: true))
        #expect(d.connected(newestStoredID: 0).map(\.topic) == [clear.topic, "homeassistant/device/b/config"])
        d.sentOneShot(messageID: 7)
        #expect(d.isOneShot(messageID: 7) && !d.isOneShot(messageID: 8))
        d.disconnected()
        #expect(d.connected(newestStoredID: 0).first == clear, "not acknowledged: sent again")
        d.sentOneShot(messageID: 8)
        let stale = d.acknowledgedOneShot(messageID: 7)
        #expect(!stale, "an id of the connection before")
        let last = d.acknowledgedOneShot(messageID: 8)
        #expect(last, "the last one answered")
        #expect(d.connected(newestStoredID: 0).map(\.topic) == ["homeassistant/device/b/config"])
        #expect(d.discoveryAnnouncements.map(\.topic) == ["homeassistant/device/b/config"])
    }

    @Test("Only JSON objects are marked replayed; other payloads go as they were stored")
    func marking() {
        #expect(DeliveryState.markedReplayed(#"{"a":1}"#) == #"{"a":1,"replayed":true}"#)
        #expect(DeliveryState.markedReplayed("{}") == #"{"replayed":true}"#)
        #expect(DeliveryState.markedReplayed("42") == "42")
    }
}
