/// One comparison of the system clock with GPS time, for a time daemon (chrony's SOCK refclock): at
/// `systemTime` (the system clock when the fix's last sentence arrived), true time was `systemTime + offset`.
///
/// NMEA time is the second the fix was taken; the sentence arrives some 50-500 ms after it, depending on
/// the receiver and the baud rate. That delay is in `offset`, steady per receiver: chrony's refclock
/// `offset` option takes it out (docs/hardware.md shows how to measure it).
public struct ClockSample: Sendable, Equatable {
    public var systemTime: Timestamp
    /// Seconds to add to the system clock to get GPS time.
    public var offset: Double

    public init(systemTime: Timestamp, offset: Double) {
        self.systemTime = systemTime
        self.offset = offset
    }
}
