import Foundation
import RidegateCore
@testable import RidegateLinux
import RidegateTestSupport
import Testing

/// The connection's seam, seen from whoever publishes through it: it publishes, and hears acknowledgements as
/// soon as it asked for them. When an answer may wait is the connection's own business (`AnswerNeeded`).
@Suite(.serialized) struct MosquittoConnectionTests {
    /// What the connection says, on its loop's thread, kept for the test's.
    private final class HeardEvents: MQTTConnectionEvents, @unchecked Sendable {
        // @unchecked: written on the loop's thread, read by the test through the lock.
        let acknowledged = Locked<[Int32]>([])
        func connectionAccepted() {}
        func connectionEnded() {}
        func acknowledged(_ acknowledgements: [MQTTAcknowledgement]) {
            acknowledged.withLock { $0 += acknowledgements.map(\.messageID) }
        }
        func received(topic: String, payload: String) {}
        func attemptFailed(reason: String) {}

        func heard(_ messageID: Int32?) -> Bool {
            guard let messageID else { return false }
            return acknowledged.withLock { $0.contains(messageID) }
        }

        /// Waits (up to `timeout` seconds) until `messageID`'s acknowledgement was heard.
        func waitUntilHeard(_ messageID: Int32?, timeout: Double = 10) async -> Bool {
            let deadline = Date().addingTimeInterval(TestTime.seconds(timeout))
            while !heard(messageID), Date() < deadline {
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            return heard(messageID)
        }
    }

    private struct Connected {
        let connection: MosquittoConnection
        let events: HeardEvents
        let loop: EventLoop

        /// Publishes one message and ends the turn (`flush`), on the loop as the publisher does; its message id.
        func publish(_ payload: String, qos: Int = 1, answer: AnswerNeeded) async -> Int32? {
            await onLoop {
                let mid = connection.publish(topic: "rg/conn/n", payload: payload, qos: qos, retain: false, answer: answer)
                connection.flush()
                return mid
            }
        }

        func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { done in loop.execute { done.resume(returning: body()) } }
        }
    }

    /// A connection without a status topic (nothing of its own in flight) to a broker of its own; answers that
    /// may wait are swept after `acknowledgementDelay` seconds.
    private func connected(to broker: MosquittoBroker, acknowledgementDelay: Double = 2) async throws -> Connected {
        let loop = try EventLoop.started()
        let settings = MQTTSettings(host: "127.0.0.1", port: broker.port, clientID: "conn-\(UUID().uuidString.prefix(8))",
                                    keepaliveSeconds: 60, reconnectMinSeconds: 1, reconnectMaxSeconds: 1, statusTopic: nil)
        let connection = try MosquittoConnection(settings: settings, maxInFlight: 10, loop: loop, logger: CapturingLogHandler().logger(),
                                                 acknowledgementDelay: acknowledgementDelay)
        let events = HeardEvents()
        connection.events = events
        connection.start()
        #expect(await connection.waitUntilConnected(timeout: TestTime.seconds(10), untilFirstFailure: false))
        return Connected(connection: connection, events: events, loop: loop)
    }

    @Test("An answer that may wait stays in the socket until the next turn's flush; one needed soon is heard with no turn")
    func answersAsSoonAsAsked() async throws {
        let broker = try await MosquittoBroker.start()
        // No sweep within the test: an answer heard was read by a turn or woke the loop.
        let c = try await connected(to: broker, acknowledgementDelay: 600)
        // libmosquitto writes a message as it is published, so on loopback the PUBACK may be back before the
        // turn's flush reads: heard in its own turn, it shows nothing about waiting. The next one is tried then.
        var waits: Int32?
        for attempt in 1...10 {
            let acknowledgedBefore = broker.logged("Sending PUBACK to")
            let mid = await c.publish(String(attempt), answer: .whenConvenient)
            let heardInItsTurn = c.events.heard(mid)
            #expect(await broker.waitUntilLogged("Sending PUBACK to", count: acknowledgedBefore + 1))
            if !heardInItsTurn {
                waits = mid
                break
            }
        }
        #expect(waits != nil, "every PUBACK was back within its own turn")
        // The PUBACK is on its way: a loop that woke for it would have read it well within this window.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(!c.events.heard(waits), "read before any turn asked for it")
        // The next turn's flush reads it, before it writes its own message.
        let soon = await c.publish("soon", answer: .soon)
        #expect(c.events.heard(waits))
        // Needed soon: heard with no turn after it.
        #expect(await c.events.waitUntilHeard(soon))
        await c.connection.close(offlineTimeout: 0)
        c.loop.stop()
    }

    @Test("With no turn after it, an answer that may wait is read by the sweep; QoS 0 is never acknowledged")
    func sweepReadsWhatNoTurnCollected() async throws {
        let broker = try await MosquittoBroker.start()
        let c = try await connected(to: broker)
        let unanswered = await c.publish("0", qos: 0, answer: .soon)
        #expect(unanswered != nil)
        let waits = await c.publish("1", answer: .whenConvenient)
        // `acknowledgementDelay` (2 s) after the turn, with nothing else published.
        #expect(await c.events.waitUntilHeard(waits, timeout: 5))
        #expect(!c.events.heard(unanswered), "a QoS 0 message taken for an acknowledgement")
        await c.connection.close(offlineTimeout: 0)
        c.loop.stop()
    }
}
