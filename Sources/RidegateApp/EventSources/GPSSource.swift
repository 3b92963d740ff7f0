import RidegateCore
import RidegateLinux

/// A GPS receiver on a serial device: raw termios, NMEA lines, one fix per epoch.
///
/// When the device disappears (USB unplugged, pty closed) it reports `no_device`, logs once, and sleeps
/// until something appears in the device's directory (inotify): it resumes within moments of the device
/// coming back, never spinning. It also retries every `retryInterval` seconds, for what inotify cannot
/// show (a device that exists but is busy, or only sends noise at every baud rate). An open device that
/// sends nothing parseable for 5 s is reported as `no_data` (wrong baud rate, TX/RX swapped).
public struct GPSSource: EventSource {
    public enum Baud: Sendable, Equatable {
        case fixed(Int)
        case auto
    }

    public let name = "gps"
    public let devicePath: String
    public let baud: Baud
    public let clock: SystemClock
    public let logger: Logger
    /// Stop instead of reopening when the device goes away (a replayed capture that has ended).
    public let stopWhenDeviceCloses: Bool
    /// Dates before this are GPS week-rollover victims (nil for replays of old captures).
    public let rolloverFloor: CivilDate?
    /// Seconds without a valid sentence before `no_data` is reported.
    public let dataTimeout: Double
    /// Seconds between attempts to open a device that is missing or unusable, when inotify says nothing.
    public let retryInterval: Double
    /// Reads the port, watches its directory and times the waits.
    public let loop: EventLoop

    public init(devicePath: String, baud: Baud, clock: SystemClock, logger: Logger, loop: EventLoop, stopWhenDeviceCloses: Bool = false,
                rolloverFloor: CivilDate? = GPSWeekRollover.releaseFloor, dataTimeout: Double = 5, retryInterval: Double = 10) {
        self.loop = loop
        self.dataTimeout = dataTimeout
        self.retryInterval = retryInterval
        self.devicePath = devicePath
        self.baud = baud
        self.clock = clock
        self.logger = logger
        self.stopWhenDeviceCloses = stopWhenDeviceCloses
        self.rolloverFloor = rolloverFloor
    }

    public func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        var reportedMissing = false
        var watcher: DirectoryWatcher?
        while !Task.isCancelled {
            // Watch the device's directory, or the nearest one that exists (/dev/serial/by-id comes and goes).
            let directory = DirectoryWatcher.nearestExistingDirectory(of: devicePath)
            if watcher?.directory != directory { watcher = directory.flatMap { try? DirectoryWatcher(directory: $0, loop: loop) } }
            let port: SerialPort
            do {
                port = try await open()
            } catch {
                if !reportedMissing {
                    logger.warning("GPS device unavailable; waiting for it", [("gps.device", devicePath), ("gps.error", error.description)])
                    emit(.gpsState(.noDevice, at: clock.now()))
                    reportedMissing = true
                }
                if let watcher {
                    await watcher.waitForChange(timeout: retryInterval)
                } else {
                    await loop.sleep(seconds: retryInterval)
                }
                continue
            }
            reportedMissing = false
            logger.info("GPS device open", [("gps.device", devicePath)])
            let statistics = await read(port, emit: emit)
            if Task.isCancelled { break }
            logger.warning("GPS device went away", [("gps.device", devicePath), ("gps.nmea", statistics.summary)])
            emit(.gpsState(.noDevice, at: clock.now()))
            reportedMissing = true
            if stopWhenDeviceCloses { return }
        }
    }

    private func open() async throws(SerialPortError) -> SerialPort {
        switch baud {
        case .fixed(let rate):
            return try SerialPort.open(path: devicePath, baud: rate)
        case .auto:
            guard let rate = try await BaudRateDetector(devicePath: devicePath, loop: loop).detect() else {
                throw SerialPortError.noRecognisableData(path: devicePath)
            }
            logger.info("GPS baud rate detected", [("gps.baud", String(rate))])
            return try SerialPort.open(path: devicePath, baud: rate)
        }
    }

    private func read(_ port: SerialPort, emit: @escaping @Sendable (SourceEvent) -> Void) async -> NMEAStatistics {
        await NMEAStreamReader(label: devicePath, rolloverFloor: rolloverFloor, dataTimeout: dataTimeout, clock: clock, logger: logger, loop: loop)
            .read(ReadableChunks.stream(port.descriptor, label: devicePath, on: loop), emit: emit)
    }
}

/// Calls `expired` once when `seconds` pass without a `kick()`. One timer (on the event loop), re-armed
/// lazily: while data flows it wakes at most once per period, and not at all once it has fired until data
/// returns.
final class DataWatchdog: Sendable {
    private let seconds: Double
    private let loop: EventLoop
    private let expired: @Sendable () -> Void
    private struct State {
        /// The last kick, and whether the timer has fired since: a kick only writes this (nothing is woken
        /// for every NMEA line); only the kick after a firing re-arms the timer.
        var last: Double
        var fired = false
        var timer: DeferredWork?
        var stopped = false
    }
    private let state = Locked(State(last: SystemClock.monotonicSeconds()))

    init(seconds: Double, on loop: EventLoop, expired: @escaping @Sendable () -> Void) {
        self.seconds = seconds
        self.loop = loop
        self.expired = expired
        arm(after: seconds)
    }

    func kick() {
        let now = SystemClock.monotonicSeconds()
        let rearm = state.withLock { s -> Bool in
            s.last = now
            defer { s.fired = false }
            return s.fired
        }
        if rearm { arm(after: seconds) }
    }

    private func arm(after delay: Double) {
        let timer = loop.execute(after: delay) { [weak self] in self?.check() }
        let replaced = state.withLock { s -> DeferredWork? in
            guard !s.stopped else { return timer }
            defer { s.timer = timer }
            return s.timer
        }
        replaced?.cancel()
    }

    private func check() {
        let (idle, stopped) = state.withLock { (SystemClock.monotonicSeconds() - $0.last, $0.stopped) }
        guard !stopped else { return }
        if idle >= seconds {
            state.withLock {
                $0.fired = true
                $0.timer = nil
            }
            expired()
        } else {
            arm(after: seconds - idle)
        }
    }

    func stop() {
        let timer = state.withLock { s -> DeferredWork? in
            s.stopped = true
            defer { s.timer = nil }
            return s.timer
        }
        timer?.cancel()
    }
}
