import CLinuxShim
import Glibc
import RidegateCore

/// A replay's own time (the demo's ride), which a clock follows instead of running freely.
public protocol ReplayPace: AnyObject, Sendable {
    /// Seconds since `clockOrigin` (monotonic) on a clock running `rate` times faster, at monotonic time `now`:
    /// no later than the replay has reached, and never less than it last said.
    func elapsed(at now: Double, since clockOrigin: Double, rate: Double) -> Double
}

/// Reads the kernel's clocks once per event; the core itself never reads a clock.
public struct SystemClock: Sendable {
    /// Seconds of monotonic time per real second: 1 for the daemon, N for a demo replayed N times faster.
    public let rate: Double
    private let origin: Double
    /// The wall clock at `origin`, for a replay whose wall clock runs at `rate` too (nil: the real wall clock).
    private let wallOrigin: Timestamp?
    /// The replay this clock follows, or nil: it runs at `rate`.
    private let pace: (any ReplayPace)?

    /// - Parameter wallStart: a replay's wall clock starts here and runs at `rate` (the demo riding a recording
    ///   N times faster, dated as recorded); nil, the system's own.
    /// - Parameter pace: the replay whose time this clock reads (the demo's ride), nil for none.
    public init(rate: Double = 1, wallStart: Timestamp? = nil, pace: (any ReplayPace)? = nil) {
        self.rate = rate
        self.pace = pace
        origin = SystemClock.monotonicSeconds()
        wallOrigin = wallStart ?? (rate == 1 && pace == nil ? nil : SystemClock.wallClock())
    }

    /// clock_gettime(2) CLOCK_MONOTONIC.
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// clock_gettime(2) CLOCK_REALTIME.
    public static func wallClock() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(secondsSince1970: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }

    /// adjtimex(2): whether the kernel's clock is disciplined (NTP); a Pi without network or RTC is not.
    /// nil when the kernel would not say (a seccomp filter such as systemd's ProtectClock=).
    public static var isSynchronised: Bool? {
        switch rg_clock_synchronised() {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }

    public func now() -> ReceiveTime {
        let mono = SystemClock.monotonicSeconds()
        let elapsed = pace?.elapsed(at: mono, since: origin, rate: rate) ?? (mono - origin) * rate
        return ReceiveTime(monotonicSeconds: origin + elapsed, system: wallOrigin.map { $0 + elapsed } ?? SystemClock.wallClock())
    }
}
