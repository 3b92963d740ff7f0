/// The gateway's idea of UTC. A Pi has no RTC and often no network, so GPS time anchored to the monotonic clock
/// is the reference; until there is one the system clock is used and every reading says it is untrusted.
///
/// Receivers do send epochs with a wrong date (a cold start, a week-rollover bug in the firmware, two sentences
/// collided into one with a valid checksum), so each fix's time is judged against the clock, not believed:
/// - the reference is established only by `agreeingEpochs` fixes in a row whose times agree with each other
///   along the monotonic clock; they then count together, in order;
/// - once established, a fix whose time is off the reference by more than `tolerance` is rejected (counted):
///   it moves no clock, splits no ride, adds no distance (a fix read late, behind by up to `lateReads` times
///   the tolerance, counts with its own time but moves no clock). A date off by whole 1024-week eras is a week-rollover
///   victim and is corrected by them, but only then: a date a year back is a glitch, not a rollover;
/// - a receiver that stays off the reference for `stepAfter` seconds, every epoch agreeing, is followed (the
///   reference was wrong, or the receiver's UTC moved): a step, counted and logged.
public struct TimeReference: Sendable {
    /// A fix and when it arrived.
    public typealias Epoch = (fix: GPSFix, received: ReceiveTime)

    /// What the reference made of a fix.
    public enum Verdict: Sendable {
        /// These fixes count, in order, with their times as the reference takes them (corrected by whole eras
        /// where they were off by them). More than one when the reference was just established; `steppedBy`
        /// when the reference just moved to the receiver's time, by that many seconds.
        case accept([Epoch], steppedBy: Double?)
        /// Held while the reference is established from it and the next fixes.
        case wait
        /// Off the reference by `offBy` seconds: not counted.
        case reject(offBy: Double)
        /// No time to judge: no position, no date, or a date before 2020 (a receiver's unsynchronised guess).
        case untimed
    }

    /// A fix's time may differ from the reference by `tolerance` seconds (2: a fix read late on a busy Pi; the
    /// demo's clock, running faster, scales it), and by `drift` of the time since the reference was last taken:
    /// while chrony slews the system clock it slews the monotonic clock too (by up to 8.3 %), so after a long
    /// outage the reference may have moved a few seconds.
    public let tolerance: Double
    public static let drift = 0.1
    /// A fix read late (a busy process reads the receiver's queued lines at once) is behind the reference by its
    /// delay: up to this many times the tolerance it is taken, with its own time, but not as a new anchor.
    public static let lateReads = 5.0
    /// Fixes in a row that must agree before their time becomes the reference.
    public static let agreeingEpochs = 3
    /// Seconds a receiver must stay off an established reference, every epoch agreeing, before it is followed.
    public static let stepAfter = 30.0
    static let eraSeconds = Double(GPSWeekRollover.era) * 86_400

    private var anchor: (monotonic: Double, utc: Timestamp)?
    /// Fixes agreeing with each other: towards establishing the reference, or, once it is, towards a step.
    private struct Candidate {
        var offset: Double
        var since: Double
        var held: [Epoch] = []
    }
    private var candidate: Candidate?
    /// GPS time minus system time at the last anchor, in seconds.
    public private(set) var systemClockOffset: Double?
    /// Fixes rejected for their time, and steps of the reference, in this run.
    public private(set) var rejectedEpochs = 0
    public private(set) var steps = 0

    public init(tolerance: Double = 2) {
        self.tolerance = tolerance
    }

    public var isTrusted: Bool { anchor != nil }

    public func utc(for receive: ReceiveTime) -> Timestamp {
        guard let a = anchor else { return receive.system }
        return a.utc + (receive.monotonicSeconds - a.monotonic)
    }

    public mutating func admit(_ fix: GPSFix, at received: ReceiveTime) -> Verdict {
        // Before 2020 a date is a receiver's guess, unless the reference shows it is whole eras off (a rollover).
        guard fix.hasPosition, let time = fix.time, anchor != nil || time.date.year >= 2020 else { return .untimed }
        let offset = time.secondsSince1970 - received.monotonicSeconds
        guard let anchor else { return establish((fix, received), offset: offset) }
        let elapsed = abs(received.monotonicSeconds - anchor.monotonic)
        let expected = anchor.utc + (received.monotonicSeconds - anchor.monotonic)
        let slack = tolerance + Self.drift * elapsed
        if let (corrected, residual) = Self.nearest(time, to: expected), residual <= slack, residual >= -slack * Self.lateReads {
            candidate = nil
            var fix = fix
            fix.time = corrected
            // A fix read late (the process was busy) is right but says nothing about the clock: no new anchor.
            if residual >= -slack { take(corrected, at: received) }
            return .accept([(fix, received)], steppedBy: nil)
        }
        rejectedEpochs += 1
        if let c = candidate, abs(c.offset - offset) <= tolerance {
            if received.monotonicSeconds - c.since >= Self.stepAfter {
                candidate = nil
                steps += 1
                take(time, at: received)
                return .accept([(fix, received)], steppedBy: time - expected)
            }
        } else {
            candidate = Candidate(offset: offset, since: received.monotonicSeconds)
        }
        return .reject(offBy: time - expected)
    }

    /// Before there is a reference: fixes agreeing in a row establish it.
    private mutating func establish(_ epoch: Epoch, offset: Double) -> Verdict {
        var c = candidate.flatMap { abs($0.offset - offset) <= tolerance ? $0 : nil }
            ?? Candidate(offset: offset, since: epoch.received.monotonicSeconds)
        c.held.append(epoch)
        guard c.held.count >= Self.agreeingEpochs else {
            candidate = c
            return .wait
        }
        candidate = nil
        if let time = epoch.fix.time { take(time, at: epoch.received) }
        return .accept(c.held, steppedBy: nil)
    }

    private mutating func take(_ time: Timestamp, at received: ReceiveTime) {
        anchor = (received.monotonicSeconds, time)
        systemClockOffset = time - received.system
    }

    /// The time moved by the whole week-rollover eras (at most 4) that bring it nearest the expected time, and
    /// how far it then is from it (negative: behind); nil when no such move brings it within a day.
    static func nearest(_ time: Timestamp, to expected: Timestamp) -> (Timestamp, Double)? {
        let difference = time - expected
        let eras = (difference / eraSeconds).rounded()
        let residual = difference - eras * eraSeconds
        guard abs(eras) <= 4, abs(residual) < 86_400 else { return nil }
        return (time + (-eras * eraSeconds), residual)
    }
}
