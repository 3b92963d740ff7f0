import CMosquitto
import Glibc
import RidegateCore

/// The orderly stop: the retained `offline` status acknowledged (or every retained topic cleared, where asked),
/// an attempt in progress called off, then the connection closed.
extension MosquittoConnection {
    /// How long a stop waits for a connection attempt in progress: its blocking steps (DNS, the TCP connect, the
    /// TLS handshake) can take minutes against a broker whose packets vanish, far past systemd's stop timeout.
    static let attemptGraceSeconds = 2.0
    /// How long a broker has to answer CONNECT once the socket is open (mosquitto answers in milliseconds).
    static let connackTimeoutSeconds = 10.0

    /// Publishes the retained `offline` status and waits (up to `offlineTimeout` seconds) for the broker's
    /// PUBACK, then disconnects and tries no more. What the broker sent meanwhile is read first, so its last
    /// acknowledgements reach `events` before `connectionEnded`.
    func close(offlineTimeout: Double) async {
        if settings.statusTopic != nil {
            let acknowledged = await withDeadline(seconds: offlineTimeout) { [self] in
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
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute { [self] in
                keepalive?.cancel()
                connackDeadline?.cancel()
                ackSweep?.cancel()
                ackSweep = nil
                readWaiting()
                readsDeferred = false
                if case .open(let socket) = phase {
                    mosquitto_disconnect(handle)
                    _ = mosquitto_loop_write(handle, 1)
                    loop.unwatch(socket)
                }
                phase = .idle
                connectedFlag.withLock { $0 = false }
                events?.connectionEnded()
                resumeOffline(false)
                done.resume()
            }
        }
    }

    /// On the loop: sends `offline` (retained, QoS 1), or clears every retained topic and the status where
    /// asked, and resumes `acknowledged` on the status's PUBACK, or at once with false when not connected.
    func publishOffline(_ acknowledged: CheckedContinuation<Bool, Never>) {
        guard isConnected, let status = settings.statusTopic else {
            acknowledged.resume(returning: false)
            return
        }
        // Where asked (the demo), nothing is left behind: every retained topic is cleared, the status last.
        for topic in retainedTopics.sorted() where topic != status {
            mosquitto_publish(handle, nil, topic, 0, nil, 1, true)
        }
        var mid: Int32 = 0
        let offline = settings.clearRetainedAtStop ? [] : Array("offline".utf8)
        guard mosquitto_publish(handle, &mid, status, Int32(offline.count), offline, 1, true) == MOSQ_ERR_SUCCESS.rawValue else {
            acknowledged.resume(returning: false)
            return
        }
        offlineMessage = mid
        offlineAcknowledged = acknowledged
        flush()
    }

    func resumeOffline(_ value: Bool) {
        offlineAcknowledged?.resume(returning: value)
        offlineAcknowledged = nil
        offlineMessage = nil
    }

    /// At a stop: calls off the next attempt, and waits for one in progress at most `attemptGraceSeconds`. An
    /// attempt still running after that is left to end on its own thread (it holds the connection until then,
    /// and touches nothing once it sees the stop).
    func callOffAttempts() async {
        let ended = await withDeadline(seconds: Self.attemptGraceSeconds) { [self] in
            let cancelled = Locked(false)
            await withTaskCancellationHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    loop.execute { [self] in
                        nextAttempt?.cancel()
                        nextAttempt = nil
                        if attemptRunning, !cancelled.withLock({ $0 }) { attemptWaiters.append(done) } else { done.resume() }
                    }
                }
            } onCancel: {
                cancelled.withLock { $0 = true }
                loop.execute { [self] in
                    for waiter in attemptWaiters { waiter.resume() }
                    attemptWaiters.removeAll()
                }
            }
        }
        if case .deadline = ended {
            logger.warning("a connection attempt to the broker has not ended (no answer); stopping without waiting for it",
                           [("mqtt.broker", "\(broker.host):\(broker.port)")])
        }
    }
}
