import Dispatch
import Foundation
import Glibc
import RidegateApp
import RidegateCore
import RidegateDemo
import RidegateLinux

/// Starting points for the fuzzer where the fixtures have none: real conversations, recorded.
public enum FuzzSeeds {
    /// The answers a simulated sensor (these services) gives the real sensor session, recorded between them
    /// as an `att_client` script (`[length][PDU]` per answer), followed by one notification of each
    /// measurement: the fuzzer starts from a whole, valid session and mutates it.
    public static func attClientScript(services: [SensorProfile]) -> [UInt8] {
        var clientSide: [Int32] = [-1, -1]
        var peripheralSide: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &clientSide) == 0, socketpair(AF_UNIX, type, 0, &peripheralSide) == 0,
              let loop = EventLoop.forOneInput() else { return [] }
        defer { loop.stop() }
        let peripheral = SimulatedSensorPeripheral(descriptor: FileDescriptor(rawValue: peripheralSide[1]),
                                                   behaviour: .init(name: "Seed", services: services, manufacturer: "ridegate", model: "seed"),
                                                   loop: loop)
        let bearer = ATTBearer(descriptor: FileDescriptor(rawValue: clientSide[0]), label: "seed", loop: loop)
        let script = Locked<[UInt8]>([])
        let connected = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let (proxyClient, proxyPeripheral) = (clientSide[1], peripheralSide[0])
        // A thread of its own: blocking in poll(2) on one of Dispatch's few shared threads starves the
        // session's tasks (Swift concurrency runs on them too).
        Thread {
            forward(between: proxyClient, and: proxyPeripheral) { answer in script.withLock { $0 += [UInt8(answer.count)] + answer } }
            finished.signal()
        }.start()
        // On the loop's thread, as the daemon runs them: on the cooperative pool a busy suite starved them for 30 s.
        let serving = Task(executorPreference: loop) { await peripheral.run() }
        let session = Task(executorPreference: loop) {
            let connection = SensorConnection(sensor: SensorRef(kind: .power, id: "seed"), bearer: bearer, clock: SystemClock(),
                                              logger: Logger(label: "seed", level: .critical, handler: SilentLogHandler()))
            _ = await connection.run { event in if case .sensorDetails = event { connected.signal() } }
        }
        _ = connected.wait(timeout: .now() + 30) // generous: the test suite keeps every core busy
        peripheral.notify(.heartRateMeasurement, [0x06, 72])
        peripheral.notify(.cscMeasurement, [0x03, 0x03, 0, 0, 0, 0x66, 0x06, 0x01, 0x00, 0xAB, 0x02])
        peripheral.notify(.cyclingPowerMeasurement, [0x20, 0x00, 0xC8, 0x00, 0x03, 0x00, 0x00, 0x04])
        usleep(100_000)
        peripheral.disconnect()
        _ = finished.wait(timeout: .now() + 30)
        session.cancel()
        serving.cancel()
        return script.withLock { $0 }
    }

    /// Copies PDUs both ways until either side hangs up; `answered` sees each one from the peripheral.
    private static func forward(between client: Int32, and peripheral: Int32, answered: ([UInt8]) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 600)
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: peripheral, events: Int16(POLLIN), revents: 0)]
        defer {
            _ = shutdown(client, Int32(SHUT_RDWR))
            close(client)
            close(peripheral)
        }
        // As long as the waits above: at a busy suite's start the session's tasks may not run for seconds, and a
        // proxy that gave up sooner closed both sides before the first PDU (a recording of 0 bytes).
        while poll(&fds, 2, 30_000) > 0 {
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let n = recv(entry.fd, &buffer, buffer.count, 0)
                guard n > 0 else { return }
                let pdu = Array(buffer[0..<n])
                if index == 1 { answered(pdu) }
                _ = pdu.withUnsafeBytes { send(fds[1 - index].fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    /// A short ride as ridegate writes it (FIT): two minutes with heart rate, power and a lap, for the `fit`
    /// target's seeds without the reference corpus.
    public static func fitFile() -> [UInt8] {
        let points = (0..<120).map { (t: Int) -> RidePoint in
            let s = Double(t)
            let latitude: Double = 40 + s * 5 / 111_195
            let altitude: Double = 1600 + Double(t % 7)
            return RidePoint(time: Timestamp(secondsSince1970: 1_782_057_600 + s), latitude: latitude, longitude: -105, altitude: altitude,
                             speed: 5, distance: s * 5, moving: t % 30 < 25, heartRate: 120 + t % 20, cadence: 85, power: 150 + t % 40)
        }
        let laps = [LapMark(time: Timestamp(secondsSince1970: 1_782_057_660), trigger: .manual)]
        return RideFileFormat.fit.write(points, laps: laps, name: "Fuzz seed", creator: "ridegate fuzz", serialNumber: 1)
    }
}
