import Foundation
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

@Suite(.serialized) struct MQTTPublisherTests {
    func client(port: Int, prefix: String = "rg/t") throws -> MQTTPublisher {
        let settings = MQTTSettings(host: "127.0.0.1", port: port, clientID: "test-\(UUID().uuidString.prefix(8))",
                                    keepaliveSeconds: 5, reconnectMinSeconds: 1, reconnectMaxSeconds: 1,
                                    statusTopic: "\(prefix)/status")
        return try MQTTPublisher(settings: settings, topicPrefix: prefix, loop: try EventLoop.started(), logger: CapturingLogHandler().logger())
    }

    /// A client on `store` (keepalive 5 s), connected, and a subscriber to everything it publishes.
    func onlineClient(broker: MosquittoBroker, store: any ReadingStore, loop: EventLoop? = nil) async throws -> (MQTTPublisher, MQTTSubscriber) {
        let settings = MQTTSettings(host: "127.0.0.1", port: broker.port, clientID: "test-\(UUID().uuidString.prefix(8))", keepaliveSeconds: 5,
                                    reconnectMinSeconds: 1, reconnectMaxSeconds: 1, statusTopic: "rg/t/status")
        let c = try MQTTPublisher(settings: settings, topicPrefix: "rg/t", store: store, loop: try loop ?? EventLoop.started(),
                                  logger: CapturingLogHandler().logger())
        let sub = try MQTTSubscriber(port: broker.port, topic: "rg/t/#")
        try c.start()
        await sub.wait(timeout: 10) { $0.contains { $0.topic == "rg/t/status" && $0.payload == "online" } }
        return (c, sub)
    }

    @Test("Publishes under the prefix, announces online (retained) and says offline on shutdown")
    func publishAndStatus() async throws {
        let broker = try await MosquittoBroker.start()
        let sub = try MQTTSubscriber(port: broker.port, topic: "rg/#")
        let c = try client(port: broker.port)
        try c.start()
        let connected = await sub.wait(timeout: 10) { $0.contains { $0.topic == "rg/t/status" && $0.payload == "online" } }
        #expect(connected.contains { $0.topic == "rg/t/status" && $0.payload == "online" })
        // Retained: a subscriber arriving after the connect learns the gateway is online.
        #expect(try await MQTTSubscriber.retained(port: broker.port, topic: "rg/t/status").map(\.payload) == ["online"])
        c.publish(Publication(topic: "heart_rate", payload: #"{"bpm":120}"#))
        let got = await sub.wait(timeout: 10) { $0.contains { $0.topic == "rg/t/heart_rate" } }
        #expect(got.contains { $0.topic == "rg/t/heart_rate" && $0.json["bpm"] as? Int == 120 })
        await c.shutdown()
        let after = await sub.wait(timeout: 10) { $0.contains { $0.payload == "offline" } }
        #expect(after.last { $0.topic == "rg/t/status" }?.payload == "offline")
        // Retained: a subscriber arriving later still learns the gateway is offline.
        let late = try MQTTSubscriber(port: broker.port, topic: "rg/t/status")
        #expect(await late.wait(timeout: 10) { !$0.isEmpty }.first?.payload == "offline")
    }

    @Test("Messages published while the broker is down are delivered, in order, when it comes back")
    func survivesBrokerOutage() async throws {
        let port = try FreePort.loopback()
        var broker = try await MosquittoBroker.start(port: port, persistence: true)
        // A persistent QoS 1 session, so the broker keeps what arrives for it while it is away.
        let subscriberArguments = ["-c", "-i", "outage-test-\(port)", "-q", "1"]
        var sub = try MQTTSubscriber(port: port, topic: "rg/t/#", extraArguments: subscriberArguments)
        let c = try client(port: port)
        try c.start()
        await sub.wait(timeout: 10) { $0.contains { $0.payload == "online" } }
        await sub.stop()
        await broker.stop()
        for i in 1...20 { c.publish(Publication(topic: "n", payload: String(i))) }
        broker = try await MosquittoBroker.start(port: port, persistence: true, directory: broker.directory)
        sub = try MQTTSubscriber(port: port, topic: "rg/t/#", extraArguments: subscriberArguments)
        let expected = (1...20).map(String.init)
        let got = await sub.wait(timeout: 15) { Set($0.filter { $0.topic == "rg/t/n" }.map(\.payload)).isSuperset(of: expected) }
        // At least once, in order: duplicates are allowed (a reading in flight at the cut is sent again).
        var seen = Set<String>()
        let firsts = got.filter { $0.topic == "rg/t/n" }.map(\.payload).filter { seen.insert($0).inserted }
        #expect(firsts == expected)
        await c.shutdown()
    }

    @Test("Shutdown without a broker returns promptly")
    func shutdownWithoutBroker() async throws {
        let c = try client(port: try FreePort.loopback())
        try c.start()
        let start = ContinuousClock.now
        await c.shutdown()
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test("A reading leaves the spool when the broker acknowledges it, not before and not never")
    func acknowledgedReadingsLeaveTheSpool() async throws {
        let broker = try await MosquittoBroker.start()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rg-ack-\(UUID().uuidString).sqlite").path
        let (c, sub) = try await onlineClient(broker: broker, store: try SQLiteSpool(path: path, maximumBytes: 10_000_000))
        for i in 1...20 { c.publish(Publication(topic: "n", payload: #"{"i":\#(i)}"#, sequence: i)) }
        let got = await sub.wait(timeout: 10) { $0.filter { $0.topic == "rg/t/n" }.count >= 20 }
        #expect(got.filter { $0.topic == "rg/t/n" }.compactMap { $0.json["i"] as? Int } == Array(1...20))
        // The PUBACKs follow the deliveries closely; give them a bounded moment to be processed.
        var depth: Int64 = -1
        for _ in 0..<100 {
            depth = await c.backlog().depth
            if depth == 0 { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(depth == 0)
        await c.shutdown()
    }

    @Test("While readings flow, the acknowledged ones leave the spool in the next reading's transaction; when none comes, at the acknowledgement sweep")
    func acknowledgementsRideAlongWithTheNextReadings() async throws {
        let broker = try await MosquittoBroker.start()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rg-ride-along-\(UUID().uuidString).sqlite").path
        let store = RecordingStore(try SQLiteSpool(path: path, maximumBytes: 10_000_000))
        let (c, sub) = try await onlineClient(broker: broker, store: store)
        // One reading per turn, each sent after the broker acknowledged the last one (it logs each PUBACK it sends).
        let acknowledgedBefore = broker.logged("Sending PUBACK to")
        for i in 1...10 {
            c.publish(Publication(topic: "n", payload: #"{"i":\#(i)}"#, sequence: i))
            await sub.wait(timeout: 10) { $0.contains { $0.topic == "rg/t/n" && $0.json["i"] as? Int == i } }
            #expect(await broker.waitUntilLogged("Sending PUBACK to", count: acknowledgedBefore + i))
        }
        let flowing = store.calls.withLock { $0 }
        #expect(flowing.removes.isEmpty, "a transaction of its own per acknowledgement: \(flowing.removes)")
        // Each PUBACK is read by the flush of its own reading's turn or the next one, and leaves with the turn
        // after: by the tenth reading's transaction the first eight have left.
        #expect(flowing.removedAlong.joined().count >= 8, "acknowledgements carried by the next readings: \(flowing.removedAlong)")
        // No more readings: the last acknowledgement is read, and leaves the spool file, at the sweep
        // (`acknowledgementDelay`, 2 s), before the keepalive (5 s idle) would have looked.
        // (The file is the client's alone while it runs: its rows are counted by the store, right after the sweep.)
        for _ in 0..<14 where store.calls.withLock({ $0.removes.isEmpty }) {
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        #expect(store.calls.withLock { $0.removes.count } == 1)
        #expect(store.calls.withLock { $0.rowsAfterRemove } == [0])
        await c.shutdown()
    }

    @Test("While readings flow, a PUBACK wakes nothing of its own (the next reading's turn reads it); a broker that goes away is still seen at once")
    func acknowledgementsWakeNothingOfTheirOwn() async throws {
        let broker = try await MosquittoBroker.start()
        let loop = try EventLoop.started()
        defer { loop.stop() }
        let store = MemoryReadingStore()
        let (c, sub) = try await onlineClient(broker: broker, store: store, loop: loop)
        // The connect's own traffic is over: the broker acknowledged the online status (its PUBACK may wait in the socket).
        #expect(await broker.waitUntilLogged("Sending PUBACK to", count: 1))
        let before = loop.wakeups
        let acknowledgedBefore = broker.logged("Sending PUBACK to")
        for i in 1...20 {
            c.publish(Publication(topic: "n", payload: #"{"i":\#(i)}"#, sequence: i))
            await sub.wait(timeout: 10) { $0.contains { $0.topic == "rg/t/n" && $0.json["i"] as? Int == i } }
            // Its PUBACK sent (the broker says so): from here it waits in the client's socket.
            #expect(await broker.waitUntilLogged("Sending PUBACK to", count: acknowledgedBefore + i))
        }
        let woken = loop.wakeups - before
        // Each reading wakes the loop once (handed over from this thread); woken for its PUBACK too, it would be 40.
        #expect(woken <= 28, "wakeups for 20 readings: \(woken)")
        #expect(await c.backlog().depth == 0, "every reading acknowledged")
        // Nothing asks for the broker's bytes now, but its hang-up wakes the loop: lost at once, not at the
        // acknowledgement sweep (`MosquittoConnection.acknowledgementDelay`, 2 s) or the keepalive.
        c.publish(Publication(topic: "n", payload: #"{"i":21}"#, sequence: 21))
        await sub.wait(timeout: 10) { $0.contains { $0.topic == "rg/t/n" && $0.json["i"] as? Int == 21 } }
        await broker.stop()
        var lost = false
        for _ in 0..<10 where !lost {
            try await Task.sleep(nanoseconds: 100_000_000)
            lost = !c.isConnected
        }
        #expect(lost, "the broker's going seen within a second")
        await sub.stop()
        await c.shutdown()
    }

    @Test("A broker that is not there at start is connected to when it appears, with no restart")
    func firstConnectionRetries() async throws {
        let port = try FreePort.loopback()
        let c = try client(port: port) // reconnect_min_s = reconnect_max_s = 1
        try c.start()
        try await TestTime.pause(1.5) // at least one refused attempt
        #expect(!c.isConnected)
        let broker = try await MosquittoBroker.start(port: port)
        let sub = try MQTTSubscriber(port: broker.port, topic: "rg/t/status")
        let online = await sub.wait(timeout: TestTime.seconds(5)) { $0.contains { $0.payload == "online" } }
        #expect(online.contains { $0.payload == "online" })
        #expect(c.isConnected)
        await c.shutdown()
    }
}

/// The real spool, with a record of how acknowledged readings leave it: in a transaction of their own
/// (`remove`) or with the next readings (`append(_:removing:)`).
final class RecordingStore: ReadingStore, @unchecked Sendable {
    let calls = Locked<(removes: [[Int64]], removedAlong: [[Int64]], rowsAfterRemove: [Int64])>(([], [], []))
    private let spool: SQLiteSpool
    init(_ spool: SQLiteSpool) { self.spool = spool }

    func append(_ readings: [NewReading]) throws(SQLiteFileError) -> [Int64] { try spool.append(readings) }
    func append(_ readings: [NewReading], removing acknowledged: [Int64]) throws(SQLiteFileError) -> [Int64] {
        if !acknowledged.isEmpty { calls.withLock { $0.removedAlong.append(acknowledged) } }
        return try spool.append(readings, removing: acknowledged)
    }
    func remove(_ ids: [Int64]) throws(SQLiteFileError) {
        if !ids.isEmpty { calls.withLock { $0.removes.append(ids) } }
        try spool.remove(ids)
        let rows = try spool.checkedDepth()
        if !ids.isEmpty { calls.withLock { $0.rowsAfterRemove.append(rows) } }
    }
    func pending(after afterID: Int64, limit: Int) throws(SQLiteFileError) -> [SQLiteSpool.Entry] { try spool.pending(after: afterID, limit: limit) }
    func depth() -> Int64 { spool.depth() }
    func lastID() -> Int64 { spool.lastID() }
    var dropped: Int64 { spool.dropped }
    func sequences() -> [String: Int] { spool.sequences() }
    func save(sequence value: Int, for topic: String) throws(SQLiteFileError) { try spool.save(sequence: value, for: topic) }
    var mode: String { spool.mode }
    var recoveries: Int { spool.recoveries }
}
