import CMosquitto
import Glibc
import RidegateCore

/// Publishing: readings stored before they are sent (one transaction per turn), latest-value state kept in
/// memory, and the backlog replayed at the pace of the broker's acknowledgements.
extension MosquittoClient {
    /// Stores and sends a reading, or keeps the newest retained state; never blocks the caller. What is
    /// published in one turn of the loop is taken in one step: its readings stored in one transaction.
    public func publish(_ publication: Publication) {
        let first = incoming.withLock { waiting -> Bool in
            waiting.append(publication)
            return waiting.count == 1
        }
        if first { loop.execute { [self] in acceptIncoming() } }
    }

    func acceptIncoming() {
        let batch = incoming.withLock { waiting -> [Publication] in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        // The acknowledgements that arrived since the last turn leave the spool in this turn's transaction.
        collectDeferredReads()
        let readings = batch.filter(Self.isStored)
        var ids: [Int64] = []
        do {
            ids = try store.append(readings.map { NewReading(topic: $0.topic, payload: $0.payload, qos: $0.qos, sequence: $0.sequence, retain: $0.retain) },
                                   removing: connection.acknowledged)
            connection.acknowledged.removeAll(keepingCapacity: true)
        } catch {
            logger.error("cannot store readings; sending them without a safety net", [("error", "\(error)"), ("mqtt.readings", String(readings.count))])
        }
        var stored = ids.makeIterator()
        for publication in batch {
            if Self.isStored(publication) {
                if let id = stored.next() {
                    guard connection.delivery.sendsNewReadingsAtOnce else { continue }
                    sendStored(StoredReading(id: id, topic: publication.topic, payload: publication.payload, qos: publication.qos,
                                             retain: publication.retain))
                } else if connection.delivery.online {
                    send(publication)
                }
            } else {
                acceptState(publication)
            }
        }
        flush()
    }

    /// Readings (QoS 1 or 2, not `health`) wait in the spool until acknowledged; so does a ride's record that is
    /// also state (the final `ride` summary, `rides/last`: retained), so a stop while the broker is away delivers it
    /// at the next start. The rest is latest-value state, kept in memory.
    static func isStored(_ p: Publication) -> Bool {
        p.topic != Topic.health.name && p.qos > 0 && (!p.retain || Topic.isRideRecord(p.topic))
    }

    func acceptState(_ publication: Publication) {
        if publication.topic == Topic.health.name {
            let completed = completedHealth(publication)
            connection.delivery.keepRetained(completed)
            if connection.delivery.online { send(completed) }
            return
        }
        if publication.retain || publication.qos == 0 {
            // Not spooled (latest-value state such as `sun`): its seq is kept on its own.
            if let seq = publication.sequence {
                do {
                    try store.save(sequence: seq, for: publication.topic)
                } catch {
                    logger.error("cannot keep a topic's sequence number", [("mqtt.topic", publication.topic), ("error", "\(error)")])
                }
            }
            if publication.retain { connection.delivery.keepRetained(publication) }
            if connection.delivery.online { send(publication) }
        }
    }

    /// The gateway's `health`, completed with what only the connection knows.
    func completedHealth(_ health: Publication) -> Publication {
        guard var json = JSONObjectWriter(extending: health.payload) else { return health }
        // Acknowledged readings waiting to leave with the next ones are delivered: not counted.
        json.add("spool_depth", max(0, Int(store.depth()) - connection.acknowledged.count))
        json.add("spool_dropped", Int(store.dropped))
        json.add("spool_mode", store.mode)
        json.add("spool_recoveries", store.recoveries)
        json.add("mqtt_connects", connection.delivery.connects)
        json.add("mqtt_refused", connection.refused.total)
        json.add("mqtt_broker", "\(broker.host):\(broker.port)")
        json.add("replayed", connection.delivery.replayedCount)
        healthFields.add(to: &json)
        var completed = health
        completed.payload = json.finish()
        return completed
    }

    /// Readings waiting for the broker, and readings dropped because the store was full.
    public func backlog() async -> (depth: Int64, dropped: Int64, connects: Int, replayed: Int) {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                collectDeferredReads()
                retirePending()
                continuation.resume(returning: (store.depth(), store.dropped, connection.delivery.connects, connection.delivery.replayedCount))
            }
        }
    }

    func send(_ p: Publication) {
        send(topic: p.absolute ? p.topic : topicPrefix + "/" + p.topic, payload: p.payload, qos: p.qos, retain: p.retain)
    }

    @discardableResult
    func send(topic full: String, payload: String, qos: Int, retain: Bool, mid: UnsafeMutablePointer<Int32>? = nil) -> Int32 {
        var text = payload
        if retain, settings.clearRetainedAtStop {
            if payload.isEmpty { connection.retainedTopics.remove(full) } else { connection.retainedTopics.insert(full) }
        }
        connection.lastWritten = SystemClock.monotonicSeconds()
        connection.published = true
        var sent: Int32 = 0
        let rc = text.withUTF8 { bytes in
            mosquitto_publish(handle, &sent, full, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
        }
        mid?.pointee = sent
        if rc == MOSQ_ERR_SUCCESS.rawValue, qos > 0 { connection.inFlightTopics[sent] = full } // what a refusal names
        if rc != MOSQ_ERR_SUCCESS.rawValue, rc != MOSQ_ERR_NO_CONN.rawValue {
            // Not a lost connection (that is reported once, by `connectionEnded`): a message the broker will
            // never take, such as one larger than it allows. Stored readings stay stored.
            logger.warning("cannot publish a message", [("mqtt.topic", full), ("mqtt.reason", Self.describe(rc))])
        }
        return rc
    }

    func sendStored(_ reading: StoredReading) {
        var mid: Int32 = 0
        if send(topic: topicPrefix + "/" + reading.topic, payload: reading.payload, qos: reading.qos, retain: reading.retain, mid: &mid) == MOSQ_ERR_SUCCESS.rawValue {
            connection.delivery.sent(messageID: mid, storedID: reading.id)
        }
    }

    /// Sends the next part of the backlog, as far as the replay window allows; called again as
    /// acknowledgements arrive, so replay is paced by the broker, not by a timer.
    func continueReplay() {
        guard let request = connection.delivery.replayRequest else { return }
        let batch: [StoredReading]
        do {
            batch = try store.pending(after: request.after, limit: request.limit)
        } catch {
            // Not "nothing pending": the backlog stays, and the next acknowledgement or connection tries again.
            logger.error("cannot read the spool's backlog", [("error", error.description)])
            return
        }
        let toSend = connection.delivery.replay(batch)
        if batch.isEmpty, connection.delivery.replayedCount > 0 {
            logger.info("backlog delivered", [("mqtt.replayed", String(connection.delivery.replayedCount))])
        }
        for reading in toSend { sendStored(reading) }
    }
}
