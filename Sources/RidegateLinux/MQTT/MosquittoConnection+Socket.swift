import CMosquitto
import Glibc
import RidegateCore

/// The socket on the loop: libmosquitto's read, write and keepalive steps when the loop says it is ready, and
/// when the loop need not wake for the broker's answers.
extension MosquittoConnection {
    /// The loop saw the socket readable (or writable while output waited, or hung up).
    func readable() {
        guard case .open = phase else { return }
        lastRead = SystemClock.monotonicSeconds()
        // Reads until the socket would block; a failure closes the connection (see `noticeClosed`).
        let rc = mosquitto_loop_read(handle, 1)
        events?.acknowledgementsRead()
        noticeClosed(rc)
        flush()
    }

    /// libmosquitto closed the socket (a read, write or keepalive step failed). Usually it says so through the
    /// disconnect callback; a TLS handshake it gives up on (bookworm's 2.0.11, a refused certificate) calls
    /// none, so the socket itself is the witness: without this the client would wait on a closed socket forever.
    func noticeClosed(_ rc: Int32) {
        let systemError = errno // the failed step's, before anything else changes it
        guard case .open = phase, mosquitto_socket(handle) < 0 else { return }
        connectionEnded(rc == MOSQ_ERR_SUCCESS.rawValue ? MOSQ_ERR_CONN_LOST.rawValue : rc, errno: systemError)
    }

    /// Writes what libmosquitto has queued; what the socket cannot take yet waits for EPOLLOUT.
    ///
    /// While live readings flow (`acknowledgementsMayWait`), a turn that wrote does not ask to be woken for the
    /// answers: the broker's acknowledgements (a PUBACK a few hundred microseconds later) wait in the socket
    /// until the next turn that publishes reads them first (`readWaiting`), so a 10 Hz GPS costs one wakeup per
    /// fix, not two, and its acknowledgements leave the spool in that turn's transaction. When no such turn
    /// comes, `ackSweep` reads them `acknowledgementDelay` later. A hang-up still wakes the loop at once; so
    /// does anything while connecting, replaying or stopping, which waits on the broker's answers.
    func flush() {
        guard case .open(let socket) = phase else { return }
        let wrote = published || mosquitto_want_write(handle)
        published = false
        if mosquitto_want_write(handle) {
            lastWritten = SystemClock.monotonicSeconds()
            noticeClosed(mosquitto_loop_write(handle, 1))
        }
        // The write may have failed and ended the connection.
        guard case .open = phase else { return }
        let deferReads = wrote && events?.acknowledgementsMayWait == true
            && offlineMessage == nil && !stopping.withLock({ $0 })
        readsDeferred = deferReads
        ackSweep?.cancel()
        ackSweep = deferReads ? loop.execute(after: Self.acknowledgementDelay) { [self] in sweepAcknowledgements() } : nil
        loop.setInterest(socket, EventLoop.Interest(readable: !deferReads, writable: mosquitto_want_write(handle)))
    }

    /// Longest a deferred acknowledgement waits in the socket when no reading comes to collect it.
    static let acknowledgementDelay = 2.0

    /// At the start of a turn that publishes: what the broker sent since the last one (its acknowledgements).
    func readWaiting() {
        guard readsDeferred, case .open = phase else { return }
        noticeClosed(mosquitto_loop_read(handle, 1))
    }

    /// No reading came to collect the acknowledgements: read them now, say the connection is idle (no
    /// reading's transaction will take them along), and wake for the broker again.
    func sweepAcknowledgements() {
        ackSweep = nil
        guard readsDeferred else { return }
        readable()
        events?.connectionIdle()
    }

    /// Sleeps until the keepalive is due (no traffic either way for `keepalive` seconds), then lets
    /// libmosquitto ping or, when its ping went unanswered, end the connection. No tick while traffic flows.
    func scheduleKeepalive() {
        keepalive?.cancel()
        let interval = Double(settings.keepaliveSeconds)
        guard interval > 0 else { return }
        keepalive = Task(executorPreference: loop) { [weak self] in
            while let self, case .open = self.phase {
                let now = SystemClock.monotonicSeconds()
                var due = min(self.lastRead, self.lastWritten) + interval
                // A ping is out and unanswered: libmosquitto gives up on it `keepalive` after sending it.
                if due <= now { due = self.lastWritten + interval }
                await self.loop.sleep(seconds: max(1, due - now))
                guard !Task.isCancelled, case .open = self.phase else { return }
                self.events?.connectionIdle()
                self.noticeClosed(mosquitto_loop_misc(self.handle))
                // misc pinged (the keepalive was due) or found the broker silent too long and closed.
                self.lastWritten = SystemClock.monotonicSeconds()
                self.flush()
            }
        }
    }
}
