import RidegateCore
import RidegateLinux

/// Uploads each finished ride to the configured training sites, from the queue in the ride log (`uploads`).
///
/// The ride log's sink queues a ride once its files are written and calls `queued()` (and once at the start,
/// when it has opened the ride log, for what an earlier run left). A pass then works the
/// queue on a thread of its own (an upload blocks on the network for seconds or minutes; the event loop only
/// keeps the timer for the next pass): every job that is due, one after the other, each step written to the
/// ride log before the next begins. With no default route (the bike away from its Wi-Fi) nothing is tried and
/// the route is looked at again every `offlineRecheckSeconds`. Failures are retried with a backoff and jitter
/// (`UploadBackoff`), a site's own wait (HTTP 429) is kept, and a failure needing the rider (a refused key or
/// file) waits for `ridegate upload retry`. Each change of a job's problem is logged once; the newest finished
/// ride's uploads are announced on `rides/last`.
public final class RideUploader: EffectSink, @unchecked Sendable {
    // @unchecked: `schedule` is only touched with its lock held; the rest is immutable or the pass's own.
    public struct Settings: Sendable {
        public var rideLogPath: String
        public var workDirectory: String
        public var exportDirectory: String?
        public var deviceID: String
        public var version: String
        public var intervalsICU: GatewayConfig.IntervalsICU?
        public var strava: GatewayConfig.Strava?
        /// How many times faster than real time the clock runs (the demo's `--speed`): waits shrink with it.
        public var timeScale = 1.0
        public var context = RideStatistics.Context()
        /// At the stop, wait this long (real seconds) for uploads still under way or due (the demo's; the daemon
        /// leaves them to its next start).
        public var waitAtStop = 0.0
    }

    static let offlineRecheckSeconds = 30.0
    /// Looked at now and then with nothing due, so a `ridegate upload retry` from the shell is seen.
    static let idleRecheckSeconds = 300.0

    private struct Schedule {
        var running = false
        var again = false
        var stopped = false
        var timer: DeferredWork?
        /// Jobs not yet done or failed: after the last pass, or queued since.
        var unfinished = false
    }

    private let settings: Settings
    private let loop: EventLoop
    private let announce: @Sendable (Publication) -> Void
    private let logger: Logger
    private let schedule = Locked(Schedule())
    private let pass: UploadPass

    public init(settings: Settings, library: CurlLibrary, loop: EventLoop, announce: @escaping @Sendable (Publication) -> Void, logger: Logger) {
        self.settings = settings
        self.loop = loop
        self.announce = announce
        self.logger = logger
        pass = UploadPass(settings: settings, library: library, logger: logger)
    }

    public func apply(_ effect: Effect) {}

    /// A ride was queued, or the ride log is open at the start: work the queue now.
    public func queued() {
        schedule.withLock { $0.unfinished = true } // a stop from now on waits for the pass this asks for
        run(after: 0)
    }

    public func shutdown() async {
        if settings.waitAtStop > 0 { await waitForUploads() }
        // An upload under way is left to end with the process: its job says `uploading`, and is sent again at the
        // next start (the site's duplicate check keeps it one activity).
        let timer = schedule.withLock { s -> DeferredWork? in
            s.stopped = true
            return s.timer
        }
        timer?.cancel()
    }

    /// Waits, at most `waitAtStop`, until no pass runs and every job is done or failed.
    private func waitForUploads() async {
        let deadline = SystemClock.monotonicSeconds() + settings.waitAtStop
        var said = false
        while SystemClock.monotonicSeconds() < deadline {
            let busy = schedule.withLock { $0.running || $0.unfinished }
            guard busy else { return }
            if !said {
                logger.notice("waiting for the ride's uploads before stopping (a stop leaves them queued for the next start)",
                              [("upload.wait_s", String(Int(settings.waitAtStop)))])
                said = true
            }
            await loop.sleep(seconds: 0.2)
        }
    }

    private func run(after seconds: Double) {
        let timer = loop.execute(after: seconds) { [self] in start() }
        let old = schedule.withLock { s -> DeferredWork? in
            defer { s.timer = timer }
            return s.timer
        }
        old?.cancel()
    }

    private func start() {
        let begin = schedule.withLock { s -> Bool in
            guard !s.stopped else { return false }
            guard !s.running else {
                s.again = true
                return false
            }
            s.running = true
            return true
        }
        guard begin else { return }
        do {
            try BlockingThread.start("upload") { [self] in
                let outcome = pass.run()
                if let listing = outcome.announcement { announce(Publication(topic: .ridesLast, payload: listing, retain: true)) }
                loop.execute { [self] in finished(nextIn: outcome.nextIn) }
            }
        } catch {
            logger.error("cannot start the upload's thread; tried again in a minute", [("error", error.description)])
            schedule.withLock { $0.running = false }
            run(after: 60)
        }
    }

    private func finished(nextIn: Double?) {
        let again = schedule.withLock { s -> Bool in
            s.running = false
            s.unfinished = nextIn != nil || s.again
            defer { s.again = false }
            return s.again
        }
        run(after: again ? 0 : (nextIn ?? Self.idleRecheckSeconds))
    }
}
