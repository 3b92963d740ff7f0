/// The gateway's idea of UTC. A Pi has no RTC and often no network, so once the GPS has a fix with a sane
/// date, GPS time anchored to the monotonic clock is the reference; until then the system clock is used
/// and every reading says it is untrusted.
public struct TimeReference: Sendable {
    private var anchor: (monotonic: Double, utc: Timestamp)?
    /// GPS time minus system time at the last anchor, in seconds.
    public private(set) var systemClockOffset: Double?

    public init() {}

    public var isTrusted: Bool { anchor != nil }

    /// Takes a GPS fix's time as the reference (only fixes with a position: a receiver without a fix may
    /// report its RTC's guess).
    public mutating func anchor(to fix: GPSFix, receivedAt: ReceiveTime) {
        guard fix.hasPosition, let time = fix.time, time.date.year >= 2020 else { return }
        anchor = (receivedAt.monotonicSeconds, time)
        systemClockOffset = time - receivedAt.system
    }

    public func utc(for receive: ReceiveTime) -> Timestamp {
        guard let a = anchor else { return receive.system }
        return a.utc + (receive.monotonicSeconds - a.monotonic)
    }
}
