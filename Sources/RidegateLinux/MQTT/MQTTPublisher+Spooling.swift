import RidegateCore

/// Publishing: readings stored before they are sent (one transaction per turn), latest-value state kept in
/// memory, and the backlog replayed at the pace of the broker's acknowledgements.
extension MQTTPublisher {
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
        connection.readWaiting()
        let readings = batch.filter(Self.isStored)
        var ids: [Int64] = []
        do {
            ids = try store.append(readings.map { NewReading(topic: $0.topic, payload: $0.payload, qos: $0.qos, sequence: $0.sequence, retain: $0.retain) },
                                   removing: acknowledged)
            acknowledged.removeAll(keepingCapacity: true)
        } catch {
            logger.error("cannot store readings; sending them without a safety net", [("error", "\(error)"), ("mqtt.readings", String(readings.count))])
        }
        var stored = ids.makeIterator()
        for publication in batch {
            if publication.oneShot {
                delivery.keepOneShot(publication)
                if delivery.online { sendOneShot(publication) }
            } else if Self.isStored(publication) {
                if let id = stored.next() {
                    guard delivery.sendsNewReadingsAtOnce else {
                        delivery.heldBehindReplay()
                        continue
                    }
                    sendStored(StoredReading(id: id, topic: publication.topic, payload: publication.payload, qos: publication.qos,
                                             retain: publication.retain))
                } else if delivery.online {
                    send(publication)
                }
            } else {
                acceptState(publication)
            }
        }
        connection.flush()
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
            delivery.keepRetained(completed)
            if delivery.online { send(completed) }
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
            if publication.retain { delivery.keepRetained(publication) }
            if delivery.online { send(publication) }
        }
    }

    /// The gateway's `health`, completed with what only the connection knows.
    func completedHealth(_ health: Publication) -> Publication {
        guard var json = JSONObjectWriter(extending: health.payload) else { return health }
        // Acknowledged readings waiting to leave with the next ones are delivered: not counted.
        json.add("spool_depth", max(0, Int(store.depth()) - acknowledged.count))
        json.add("spool_dropped", Int(store.dropped))
        json.add("spool_mode", store.mode)
        json.add("spool_recoveries", store.recoveries)
        json.add("mqtt_connects", delivery.connects)
        json.add("mqtt_refused", refused.total)
        let broker = connection.broker
        json.add("mqtt_broker", "\(broker.host):\(broker.port)")
        json.add("replayed", delivery.replayedCount)
        healthFields.add(to: &json)
        var completed = health
        completed.payload = json.finish()
        return completed
    }

    /// Readings waiting for the broker, and readings dropped because the store was full.
    public func backlog() async -> (depth: Int64, dropped: Int64, connects: Int, replayed: Int) {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                connection.readWaiting()
                retirePending()
                continuation.resume(returning: (store.depth(), store.dropped, delivery.connects, delivery.replayedCount))
            }
        }
    }

    func send(_ p: Publication) {
        connection.publish(topic: p.absolute ? p.topic : topicPrefix + "/" + p.topic, payload: p.payload, qos: p.qos, retain: p.retain)
    }

    func sendOneShot(_ p: Publication) {
        if let mid = connection.publish(topic: p.topic, payload: p.payload, qos: p.qos, retain: p.retain) {
            delivery.sentOneShot(messageID: mid)
        }
    }

    func sendStored(_ reading: StoredReading) {
        if let mid = connection.publish(topic: topicPrefix + "/" + reading.topic, payload: reading.payload, qos: reading.qos, retain: reading.retain) {
            delivery.sent(messageID: mid, storedID: reading.id)
        }
    }

    /// Sends the next part of the backlog, as far as the replay window and pace allow; called again as
    /// acknowledgements arrive and, while the pace holds it back, by a timer.
    func continueReplay() {
        let now = SystemClock.monotonicSeconds()
        guard let request = delivery.replayRequest(at: now) else {
            if replayTimer == nil, let wait = delivery.secondsUntilReplay(at: now) {
                replayTimer = loop.execute(after: wait) { [self] in
                    replayTimer = nil
                    continueReplay()
                    connection.flush()
                }
            }
            return
        }
        let batch: [StoredReading]
        do {
            batch = try store.pending(after: request.after, limit: request.limit)
        } catch {
            // Not "nothing pending": the backlog stays, and the next acknowledgement or connection tries again.
            logger.error("cannot read the spool's backlog", [("error", error.description)])
            return
        }
        let toSend = delivery.replay(batch, asked: request.limit, at: now)
        if !delivery.replaying, delivery.replayedCount > 0 {
            logger.info("backlog delivered", [("mqtt.replayed", String(delivery.replayedCount))])
        }
        for reading in toSend { sendStored(reading) }
    }

    /// After a read: while live readings flow, what the acknowledgements retired leaves the spool with the
    /// next turn's readings, in their transaction (one journal commit per reading instead of two); a replay
    /// retires at once and goes on.
    func retireAcknowledged() {
        guard !acknowledged.isEmpty, !delivery.sendsNewReadingsAtOnce else { return }
        retirePending()
        continueReplay()
    }

    /// Removes the acknowledged readings still in the spool: when no reading came to take them along (the
    /// connection idle), before the spool's depth is read or a replay starts from it, at the stop. So an
    /// acknowledged reading stays stored at most until one of those; a crash meanwhile sends it again (same seq).
    func retirePending() {
        guard !acknowledged.isEmpty else { return }
        let ids = acknowledged
        acknowledged.removeAll(keepingCapacity: true)
        do {
            try store.remove(ids)
        } catch {
            // Delivered anyway: at worst they are sent again after a restart (same seq: subscribers see a duplicate).
            logger.error("cannot remove acknowledged readings from the spool", [("error", "\(error)"), ("mqtt.readings", String(ids.count))])
        }
    }
}
