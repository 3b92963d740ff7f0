import CMosquitto
import Glibc
import RidegateCore

/// The orderly stop: the retained `offline` status acknowledged (or every retained topic cleared, where asked),
/// then the connection closed and the acknowledged readings retired from the spool.
extension MosquittoClient {
    /// Publishes the retained `offline` status and waits (up to `timeout` seconds) for the broker's PUBACK,
    /// then disconnects. Part of the orderly shutdown.
    public func shutdown(timeout: Double = 1.5) async {
        if settings.statusTopic != nil {
            let acknowledged = await withDeadline(seconds: timeout) { [self] in
                let cancelled = Locked(false)
                return await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                        loop.execute { [self] in
                            if cancelled.withLock({ $0 }) { continuation.resume(returning: false) } else { publishOffline(continuation) }
                        }
                    }
                } onCancel: {
                    cancelled.withLock { $0 = true }
                    loop.execute { [self] in resumeOffline(false) }
                }
            }
            if case .deadline = acknowledged { logger.warning("broker did not acknowledge the offline status in time") }
        }
        stopping.withLock { $0 = true }
        await callOffAttempts()
        let depth = await withCheckedContinuation { (done: CheckedContinuation<Int64, Never>) in
            loop.execute { [self] in
                connection.keepalive?.cancel()
                connection.connackDeadline?.cancel()
                connection.ackSweep?.cancel()
                connection.ackSweep = nil
                collectDeferredReads()
                connection.readsDeferred = false
                if case .open(let socket) = connection.phase {
                    mosquitto_disconnect(handle)
                    _ = mosquitto_loop_write(handle, 1)
                    loop.unwatch(socket)
                }
                connection.phase = .idle
                connectedFlag.withLock { $0 = false }
                retirePending()
                connection.delivery.disconnected()
                resumeOffline(false)
                done.resume(returning: store.depth())
            }
        }
        if depth > 0 {
            logger.notice("readings kept for the next connection", [("mqtt.spool_depth", String(depth))])
        }
        if ownsLoop { loop.stop() }
    }

    /// On the loop: sends `offline` (retained, QoS 1), or clears every retained topic and the status where
    /// asked, and resumes `acknowledged` on the status's PUBACK, or at once with false when not connected.
    func publishOffline(_ acknowledged: CheckedContinuation<Bool, Never>) {
        guard connection.delivery.online, let status = settings.statusTopic else {
            acknowledged.resume(returning: false)
            return
        }
        // Where asked (the demo), nothing is left behind: every retained topic is cleared, the status last.
        for topic in connection.retainedTopics.sorted() where topic != status {
            mosquitto_publish(handle, nil, topic, 0, nil, 1, true)
        }
        var mid: Int32 = 0
        let offline = settings.clearRetainedAtStop ? [] : Array("offline".utf8)
        guard mosquitto_publish(handle, &mid, status, Int32(offline.count), offline, 1, true) == MOSQ_ERR_SUCCESS.rawValue else {
            acknowledged.resume(returning: false)
            return
        }
        connection.offlineMessage = mid
        connection.offlineAcknowledged = acknowledged
        flush()
    }

    func resumeOffline(_ value: Bool) {
        connection.offlineAcknowledged?.resume(returning: value)
        connection.offlineAcknowledged = nil
        connection.offlineMessage = nil
    }
}
