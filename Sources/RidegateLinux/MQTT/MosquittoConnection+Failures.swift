import CMosquitto
import Glibc
import RidegateCore

/// Why a connection attempt failed, in words a person can act on (a refused certificate names the CA file and
/// the host name to check), said once per reason and then once a minute with the count (`RepeatedFailures`).
extension MosquittoConnection {
    /// Says why attempts fail: at once for a reason not said before, then once a minute with the count, so a
    /// broker that stays away does not fill the journal.
    func reportFailure(_ reason: String) {
        let now = SystemClock.monotonicSeconds()
        let (say, attempts) = failures.withLock { f in (f.failed(reason, at: now), f.attempts) }
        guard say else { return }
        logger.warning("cannot connect to the broker; retrying with backoff", [
            ("mqtt.broker", "\(broker.host):\(broker.port)"), ("mqtt.reason", reason), ("mqtt.attempts", String(attempts)),
        ])
    }

    /// The result code in words, with what OpenSSL said when TLS failed. `systemError` is the errno of the
    /// failed call, read right after it: anything in between (closing or unwatching the socket) changes errno.
    func failureReason(_ rc: Int32, errno systemError: Int32 = Glibc.errno) -> String {
        // The last error line stays until a connection succeeds: libmosquitto may report the failed result
        // before or after the line that explains it, and both must give the same reason.
        let detail = transportError.withLock { $0 }
        // bookworm's libmosquitto ends a refused handshake with MOSQ_ERR_TLS; trixie's (2.0.21) with an errno of
        // EPROTO ("Protocol error") and no log line.
        let tlsFailure = settings.tls != nil
            && ([MOSQ_ERR_TLS.rawValue, MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_PROTOCOL.rawValue].contains(rc)
                || (rc == MOSQ_ERR_ERRNO.rawValue && systemError == EPROTO))
        if let detail, tlsFailure, detail.contains("certificate verify failed") {
            return "TLS: the broker's certificate was not accepted: not signed by mqtt.ca_file (\(settings.tls?.caFile ?? "?")), expired, "
                + "or not issued for the name \(broker.host) (mqtt.host must be a name or address the certificate lists)"
        }
        if let detail, tlsFailure, detail.contains("SSL") || detail.contains("TLS") {
            return "TLS: \(detail)"
        }
        if tlsFailure {
            // Some libmosquitto versions say only "Protocol error" for a refused handshake, and log nothing.
            return "TLS: the connection failed during the handshake (\(Self.describe(rc, errno: systemError))): check that mqtt.ca_file "
                + "(\(settings.tls?.caFile ?? "?")) signed the broker's certificate and that it lists \(broker.host)"
        }
        if rc == MOSQ_ERR_ERRNO.rawValue, systemError == ECONNREFUSED {
            return "connection refused: nothing listens on \(broker.host):\(broker.port) (is mosquitto running? mqtt.port?)"
        }
        return Self.describe(rc, errno: systemError)
    }

    static func describe(_ rc: Int32, errno systemError: Int32 = Glibc.errno) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(systemError)) }
        // libmosquitto's own text is "Lookup error."; say what failed and where to look.
        if rc == MOSQ_ERR_EAI.rawValue { return "cannot resolve the broker's host name (check mqtt.host, /etc/hosts and DNS)" }
        return String(cString: mosquitto_strerror(rc))
    }
}

