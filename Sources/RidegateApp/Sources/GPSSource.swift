import RidegateCore
import RidegateLinux

/// A GPS receiver on a serial device: raw termios, NMEA lines, one fix per epoch.
///
/// When the device disappears (USB unplugged, pty closed) it reports `no_device`, logs once, and reopens
/// with a bounded backoff (0.5 s doubling to 2 s), so it resumes within 2 s of the device coming back
/// without ever spinning.
public struct GPSSource: EventSource {
    public let name = "gps"
    public let devicePath: String
    public let baud: Int
    public let clock: SystemClock
    public let logger: Logger
    /// Stop instead of reopening when the device goes away (a replayed file that has ended).
    public let stopWhenDeviceCloses: Bool

    public init(devicePath: String, baud: Int, clock: SystemClock, logger: Logger, stopWhenDeviceCloses: Bool = false) {
        self.devicePath = devicePath
        self.baud = baud
        self.clock = clock
        self.logger = logger
        self.stopWhenDeviceCloses = stopWhenDeviceCloses
    }

    public func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        var backoff = 0.5
        var reportedMissing = false
        while !Task.isCancelled {
            let port: SerialPort
            do {
                port = try SerialPort.open(path: devicePath, baud: baud)
            } catch {
                if !reportedMissing {
                    logger.warning("GPS device unavailable; waiting for it", [("gps.device", devicePath), ("gps.error", error.description)])
                    emit(.gpsState(.noDevice, at: clock.now()))
                    reportedMissing = true
                }
                try? await Task.sleep(nanoseconds: UInt64(backoff * 1e9))
                backoff = min(backoff * 2, 2)
                continue
            }
            backoff = 0.5
            reportedMissing = false
            logger.info("GPS device open", [("gps.device", devicePath), ("gps.baud", String(baud))])
            let statistics = await read(port, emit: emit)
            if Task.isCancelled { break }
            logger.warning("GPS device went away", [("gps.device", devicePath), ("gps.nmea", statistics.summary)])
            emit(.gpsState(.noDevice, at: clock.now()))
            reportedMissing = true
            if stopWhenDeviceCloses { return }
        }
    }

    private func read(_ port: SerialPort, emit: @escaping @Sendable (SourceEvent) -> Void) async -> NMEAStatistics {
        var splitter = LineSplitter(maximumLength: NMEAFraming.maximumLength + 8)
        let decoder = NMEADecoder()
        var assembler = FixAssembler()
        var statistics = NMEAStatistics()
        do {
            for try await chunk in ReadableChunks.stream(port.descriptor, label: devicePath) {
                let now = clock.now()
                splitter.append(chunk) { line in
                    let outcome = decoder.decode(line: line)
                    statistics.count(outcome)
                    switch outcome {
                    case .decoded(let sentence):
                        for fix in assembler.consume(sentence) { emit(.gpsFix(fix, at: now)) }
                    case .rejected(let reason) where reason != .empty:
                        logger.debug("NMEA line rejected", [("gps.reason", "\(reason)")])
                    default:
                        break
                    }
                }
            }
        } catch {
            logger.debug("GPS read ended", [("gps.error", "\(error)")])
        }
        return statistics
    }
}
