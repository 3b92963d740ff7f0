import CMosquitto
import Glibc
import RidegateCore

/// libmosquitto's callbacks and what they mean to the connection: on the loop's thread, inside
/// mosquitto_loop_read/write/misc (`configure` sets them).
extension MosquittoClient {
    /// The socket opened but CONNECT went unanswered: something listens there that is not an MQTT broker (or one
    /// that expects TLS first). Said as such, then closed and tried again with backoff.
    func connackOverdue() {
        connection.connackDeadline = nil
        guard case .open = connection.phase, !isConnected else { return }
        attemptFailed("the broker at \(broker.host):\(broker.port) took the connection but did not answer MQTT's CONNECT within "
                      + "\(Int(Self.connackTimeoutSeconds)) s: is an MQTT broker listening on mqtt.port, or does it expect TLS (mqtt.ca_file)?")
        // Ended as a refusal, which `connectionEnded` does not report again; then the socket goes.
        connectionEnded(MOSQ_ERR_CONN_REFUSED.rawValue, errno: 0)
        mosquitto_disconnect(handle)
        _ = mosquitto_loop_write(handle, 1)
    }

    func didConnect(_ rc: Int32) {
        connection.connackDeadline?.cancel()
        connection.connackDeadline = nil
        guard rc == 0 else {
            let reason = String(cString: mosquitto_connack_string(rc))
            attemptFailed(rc == 4 || rc == 5 ? "the broker refused the credentials (\(reason)): check mqtt.username and mqtt.password_file" : "the broker refused the connection: \(reason)")
            return
        }
        connectedFlag.withLock { $0 = true }
        mosquitto_log_callback_set(handle, nil)
        failures.withLock { $0.succeeded() }
        transportError.withLock { $0 = nil }
        connection.backoff.reset()
        let online = Array("online".utf8)
        if let status = settings.statusTopic {
            var mid: Int32 = 0
            if mosquitto_publish(handle, &mid, status, Int32(online.count), online, 1, true) == MOSQ_ERR_SUCCESS.rawValue {
                connection.inFlightTopics[mid] = status
            }
        }
        if let ha = settings.homeAssistantStatusTopic { mosquitto_subscribe(handle, nil, ha, 1) }
        let retained = connection.delivery.connected(newestStoredID: store.lastID())
        logger.info(connection.delivery.connects == 1 ? "connected to broker" : "reconnected to broker",
                    [("mqtt.broker", "\(broker.host):\(broker.port)"), ("mqtt.spool_depth", String(store.depth()))])
        for p in retained { send(p) }
        continueReplay()
        resumeConnectionWaiters()
    }

    func resumeConnectionWaiters() {
        for entry in connection.connectionWaiters { entry.waiter.resume() }
        connection.connectionWaiters.removeAll()
    }

    /// An attempt failed: said (`reportFailure`), and the end of the wait for those who wait only that long.
    func attemptFailed(_ reason: String) {
        reportFailure(reason)
        moveToNextBroker()
        for entry in connection.connectionWaiters where entry.untilFirstFailure { entry.waiter.resume() }
        connection.connectionWaiters.removeAll { $0.untilFirstFailure }
    }

    /// Home Assistant restarted (its birth message): announce the discovery configs again.
    func didReceive(payload: String) {
        guard payload == "online" else { return }
        let announcements = connection.delivery.discoveryAnnouncements
        logger.info("Home Assistant is online; announcing discovery again", [("mqtt.configs", String(announcements.count))])
        for p in announcements { send(p) }
    }

    /// The connection closed (libmosquitto closed the socket already): unwatch it and try again later.
    /// `systemError`: the errno of the step that failed (unwatching the closed socket below sets EBADF).
    func connectionEnded(_ rc: Int32, errno systemError: Int32) {
        guard case .open(let socket) = connection.phase else { return }
        loop.unwatch(socket)
        connection.connackDeadline?.cancel()
        connection.connackDeadline = nil
        connection.keepalive?.cancel()
        connection.keepalive = nil
        connection.ackSweep?.cancel()
        connection.ackSweep = nil
        connection.readsDeferred = false
        connection.inFlightTopics.removeAll()
        // The next connection's replay starts from the spool: what this one delivered must not be in it.
        retirePending()
        let wasConnected = connectedFlag.withLock { was in
            defer { was = false }
            return was
        }
        connection.delivery.disconnected()
        resumeOffline(false)
        if stopping.withLock({ $0 }) {
            connection.phase = .idle
            return
        }
        if wasConnected {
            logger.warning("lost the broker; storing readings and reconnecting with backoff", [("mqtt.reason", failureReason(rc, errno: systemError))])
        } else if rc != MOSQ_ERR_CONN_REFUSED.rawValue {
            // A connection that never came up (a TLS handshake refused after the TCP connect): an attempt
            // failed. (A refused CONNACK was reported by `didConnect`.)
            attemptFailed(failureReason(rc, errno: systemError))
        }
        attemptConnection(after: nextDelay())
    }

    /// A PUBACK (or PUBCOMP): `reason` 0x80 and up is the broker's refusal, never a delivery.
    func didPublish(_ mid: Int32, reason: Int32) {
        if connection.offlineMessage == mid {
            resumeOffline(reason < 0x80)
            return
        }
        let topic = connection.inFlightTopics.removeValue(forKey: mid)
        if reason >= 0x80 { refused(topic: topic, reason: reason) }
        // Retired together after the read (`retireAcknowledged`): one spool transaction per turn. A refused
        // reading goes too, counted and said: the broker would refuse it again at every replay.
        if let id = connection.delivery.acknowledged(messageID: mid) { connection.acknowledged.append(id) }
    }

    /// Says (at once, then once a minute with the count) which topic the broker refused and why.
    func refused(topic: String?, reason: Int32) {
        guard let count = connection.refused.occurred(at: SystemClock.monotonicSeconds()) else { return }
        let words = mosquitto_reason_string(reason).map { String(cString: $0) } ?? "reason code \(reason)"
        logger.warning("the broker refused a reading; it is dropped and counted on health (mqtt_refused)", [
            ("mqtt.topic", topic ?? "?"), ("mqtt.reason", words), ("mqtt.refused", String(count)),
            ("mqtt.fix", "check what the broker allows this client (its ACL for mqtt.username or the client id)"),
        ])
    }

    /// After a read: while live readings flow, what the acknowledgements retired leaves the spool with the
    /// next turn's readings, in their transaction (one journal commit per reading instead of two); a replay
    /// retires at once and goes on.
    func retireAcknowledged() {
        guard !connection.acknowledged.isEmpty, !connection.delivery.sendsNewReadingsAtOnce else { return }
        retirePending()
        continueReplay()
    }

    /// Removes the acknowledged readings still in the spool: when no reading came to take them along (the
    /// acknowledgement sweep, the keepalive's wake), before the spool's depth is read or a replay starts from it, at shutdown. So an
    /// acknowledged reading stays stored at most until one of those; a crash meanwhile sends it again (same seq).
    func retirePending() {
        guard !connection.acknowledged.isEmpty else { return }
        let ids = connection.acknowledged
        connection.acknowledged.removeAll(keepingCapacity: true)
        do {
            try store.remove(ids)
        } catch {
            // Delivered anyway: at worst they are sent again after a restart (same seq: subscribers see a duplicate).
            logger.error("cannot remove acknowledged readings from the spool", [("error", "\(error)"), ("mqtt.readings", String(ids.count))])
        }
    }

    /// libmosquitto's error lines, kept for the next failure report (every attempt reports its own failure:
    /// the blocking connect's result, or the end of a connection that never came up). A refused certificate
    /// is the line that explains a failed handshake; OpenSSL's later lines of the same attempt do not replace it.
    func didLogError(_ text: String) {
        transportError.withLock { last in
            if last?.contains("certificate verify failed") != true || text.contains("certificate verify failed") { last = text }
        }
    }

    /// Why the last connection attempt failed, in words (nil while connected or before any attempt).
    public var lastFailure: String? { failures.withLock { $0.lastReason } }

    /// After a failed attempt, the next of a cluster's brokers (`mqtt.hosts`) is tried; a connection that
    /// works stays where it is (one that is lost tries its broker again first).
    func moveToNextBroker() {
        let brokers = settings.brokers
        guard brokers.count > 1 else { return }
        currentBroker.withLock { current in
            let index = brokers.firstIndex(of: current) ?? 0
            current = brokers[(index + 1) % brokers.count]
        }
    }
}
