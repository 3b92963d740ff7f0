import RidegateCore
import RidegateLinux

/// The receiver read through a running gpsd (`gps.gpsd`): many Pis already run one (chrony's time, other
/// clients), and only one program can own the serial port. ridegate asks gpsd for the receiver's raw NMEA
/// (`?WATCH={"enable":true,"nmea":true}`) and decodes it itself, exactly as from the port; gpsd's JSON lines
/// (its version, the watch reply) are not NMEA and are counted as such. When gpsd goes away (a restart, an
/// upgrade) the source says `no_device` and reconnects with backoff.
public struct GPSDSource: EventSource {
    public var name: String { "gps" }
    public let address: BrokerAddress
    public let clock: SystemClock
    public let logger: Logger
    public let dataTimeout: Double
    public let backoff: ReconnectBackoff
    /// Reads gpsd's socket and times the waits.
    public let loop: EventLoop

    public init(address: BrokerAddress, clock: SystemClock, logger: Logger, loop: EventLoop, dataTimeout: Double = 5,
                backoff: ReconnectBackoff = ReconnectBackoff(initial: 1, maximum: 30)) {
        self.loop = loop
        self.address = address
        self.clock = clock
        self.logger = logger
        self.dataTimeout = dataTimeout
        self.backoff = backoff
    }

    static let watchNMEA = Array("?WATCH={\"enable\":true,\"nmea\":true};\n".utf8)

    public func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        var retry = backoff
        var reportedMissing = false
        let label = "gpsd \(address)"
        while !Task.isCancelled {
            let socket: FileDescriptor
            do {
                socket = try await TCPConnection.connect(host: address.host, port: address.port)
                try socket.writeAll(Self.watchNMEA)
            } catch {
                if !reportedMissing {
                    logger.warning("cannot reach gpsd; trying again", [
                        ("gps.gpsd", address.description), ("gps.error", "\(error)"),
                        ("gps.fix", "is gpsd running (systemctl status gpsd), listening there (its -S option), and reachable?"),
                    ])
                    emit(.gpsState(.noDevice, at: clock.now()))
                    reportedMissing = true
                }
                await loop.sleep(seconds: retry.delay())
                continue
            }
            retry = backoff
            reportedMissing = false
            logger.info("reading the GPS through gpsd", [("gps.gpsd", address.description)])
            let reader = NMEAStreamReader(label: label, rolloverFloor: GPSWeekRollover.releaseFloor, dataTimeout: dataTimeout,
                                          clock: clock, logger: logger, loop: loop)
            let statistics = await reader.read(ReadableChunks.stream(socket, label: label, on: loop), emit: emit)
            if Task.isCancelled { break }
            logger.warning("gpsd closed the connection; reconnecting", [("gps.gpsd", address.description), ("gps.nmea", statistics.summary)])
            emit(.gpsState(.noDevice, at: clock.now()))
            reportedMissing = true
            await loop.sleep(seconds: retry.delay())
        }
    }
}
