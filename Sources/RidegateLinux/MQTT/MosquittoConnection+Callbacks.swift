import CMosquitto
import Glibc
import RidegateCore

/// libmosquitto's callbacks and what they mean to the connection: on the loop's thread, inside
/// mosquitto_loop_read/write/misc (`configure` sets them).
extension MosquittoConnection {
    /// The socket opened but CONNECT went unanswered: something listens there that is not an MQTT broker (or one
    /// that expects TLS first). Said as such, then closed and tried again with backoff.
    func connackOverdue() {
        connackDeadline = nil
        guard case .open = phase, !isConnected else { return }
        attemptFailed("the broker at \(broker.host):\(broker.port) took the connection but did not answer MQTT's CONNECT within "
                      + "\(Int(Self.connackTimeoutSeconds)) s: is an MQTT broker listening on mqtt.port, or does it expect TLS (mqtt.ca_file)?")
        // Ended as a refusal, which `connectionEnded` does not report again; then the socket goes.
        connectionEnded(MOSQ_ERR_CONN_REFUSED.rawValue, errno: 0)
        mosquitto_disconnect(handle)
        _ = mosquitto_loop_write(handle, 1)
    }

    func didConnect(_ rc: Int32) {
        connackDeadline?.cancel()
        connackDeadline = nil
        guard rc == 0 else {
            let reason = String(cString: mosquitto_connack_string(rc))
            attemptFailed(rc == 4 || rc == 5 ? "the broker refused the credentials (\(reason)): check mqtt.username and mqtt.password_file" : "the broker refused the connection: \(reason)")
            return
        }
        connectedFlag.withLock { $0 = true }
        mosquitto_log_callback_set(handle, nil)
        failures.withLock { $0.succeeded() }
        transportError.withLock { $0 = nil }
        backoff.reset()
        if let status = settings.statusTopic { publish(topic: status, payload: "online", qos: 1, retain: true) }
        if let ha = settings.homeAssistantStatusTopic { mosquitto_subscribe(handle, nil, ha, 1) }
        events?.connectionAccepted()
        resumeConnectionWaiters()
    }

    func resumeConnectionWaiters() {
        for entry in connectionWaiters { entry.waiter.resume() }
        connectionWaiters.removeAll()
    }

    /// An attempt failed: said (`reportFailure`), and the end of the wait for those who wait only that long.
    func attemptFailed(_ reason: String) {
        reportFailure(reason)
        moveToNextBroker()
        for entry in connectionWaiters where entry.untilFirstFailure { entry.waiter.resume() }
        connectionWaiters.removeAll { $0.untilFirstFailure }
    }

    /// The connection closed (libmosquitto closed the socket already): unwatch it and try again later.
    /// `systemError`: the errno of the step that failed (unwatching the closed socket below sets EBADF).
    func connectionEnded(_ rc: Int32, errno systemError: Int32) {
        guard case .open(let socket) = phase else { return }
        loop.unwatch(socket)
        connackDeadline?.cancel()
        connackDeadline = nil
        keepalive?.cancel()
        keepalive = nil
        ackSweep?.cancel()
        ackSweep = nil
        readsDeferred = false
        inFlightTopics.removeAll()
        let wasConnected = connectedFlag.withLock { was in
            defer { was = false }
            return was
        }
        events?.connectionEnded()
        resumeOffline(false)
        if stopping.withLock({ $0 }) {
            phase = .idle
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
        if offlineMessage == mid {
            resumeOffline(reason < 0x80)
            return
        }
        let topic = inFlightTopics.removeValue(forKey: mid)
        var refusal: MQTTRefusal?
        if reason >= 0x80 {
            let words = mosquitto_reason_string(reason).map { String(cString: $0) } ?? "reason code \(reason)"
            refusal = MQTTRefusal(topic: topic ?? "?", reason: words)
        }
        events?.acknowledged(messageID: mid, refusal: refusal)
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
    var lastFailure: String? { failures.withLock { $0.lastReason } }

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
