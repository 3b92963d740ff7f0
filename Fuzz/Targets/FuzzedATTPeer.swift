import Dispatch
import Foundation
import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux

/// A BLE peer whose every word is fuzz: the script is a run of `[length][PDU bytes]` records, sent one per
/// request the client makes (or after 5 ms of silence, so a client waiting for something else never stalls
/// the run); when the script ends the peer hangs up. The client is the real sensor session, as the daemon
/// runs it against a device that advertised a sensor service.
enum FuzzedATTPeer {
    static func session(script: [UInt8]) {
        guard let loop = EventLoop.forOneInput() else { return }
        defer { loop.stop() }
        guard let link = try? ATTBearer.pair(label: "fuzz", loop: loop) else { return }
        let done = DispatchSemaphore(value: 0)
        let peer = link.peripheral.rawValue
        // A thread of its own: blocking in poll(2) on one of Dispatch's few shared threads starves the
        // session's tasks (Swift concurrency runs on them too).
        Thread {
            play(script, on: peer)
            _ = shutdown(peer, Int32(SHUT_RDWR))
            done.signal()
        }.start()
        let session = Task {
            let connection = SensorConnection(sensor: SensorRef(kind: .power, id: "fuzz"), bearer: link.client, clock: SystemClock(),
                                              logger: Logger(label: "fuzz", level: .critical, handler: SilentLogHandler()),
                                              transactionTimeout: 1)
            _ = await connection.run { _ in }
            done.signal()
        }
        done.wait()
        done.wait()
        _ = session
        close(peer)
    }

    private static func play(_ script: [UInt8], on fd: Int32) {
        var offset = 0
        var request = [UInt8](repeating: 0, count: 600)
        while offset < script.count {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 5) > 0 {
                let n = recv(fd, &request, request.count, 0)
                if n <= 0 { return } // the client hung up
            }
            let length = Int(script[offset])
            let end = min(script.count, offset + 1 + length)
            let pdu = Array(script[(offset + 1)..<end])
            offset = end
            guard !pdu.isEmpty else { continue }
            _ = pdu.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }
}
