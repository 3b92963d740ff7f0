/// What the LED shows, chosen from what the gateway knows: the zone while one is known (it is why the LED
/// exists), else the one status that matters most; the lap button's acknowledgement over either for a second.
/// It remembers what it showed, so the sink hears only of changes.
struct LEDChoice: Sendable {
    /// A zone and how many there are (the pattern shows its place among them).
    struct Zone: Equatable, Sendable {
        var zone: Int
        var of: Int
    }

    /// What the choice reads, taken afresh from the gateway's state after every event.
    struct Situation: Equatable, Sendable {
        /// The power zone, when the LED shows power zones (`led.zones`) and one is known.
        var powerZone: Zone?
        /// Whether a power meter is connected, and whether any sensor at all has been heard of: a power zone
        /// from a meter that has gone is stale, unless zones come from somewhere without sensor states.
        var powerMeterConnected = false
        var anySensorKnown = false
        var heartRateEnabled = true
        var heartRateZone: Zone?
        /// The state of every heart-rate strap heard of.
        var straps: Set<SensorState> = []
        /// The strap says it is not touching skin.
        var noSensorContact = false
        var gpsFix = false
        var sunsetWarning = false
        /// The state directory cannot be written: a power cut would lose the ride.
        var stateReadOnly = false
        /// The configuration file was refused and the last good one runs.
        var lastGoodConfig = false
    }

    /// How long the LED says the lap button was heard.
    static let acknowledgeSeconds = 1.0

    private var shown: LEDSignal = .off
    /// Monotonic seconds until which the acknowledgement shows.
    private var acknowledgedUntil: Double?

    /// The lap button was heard at `now`.
    mutating func acknowledge(at now: Double) {
        acknowledgedUntil = now + Self.acknowledgeSeconds
    }

    /// What to show now, when it differs from what is shown.
    mutating func change(for situation: Situation, now: Double) -> LEDSignal? {
        var signal = Self.signal(for: situation)
        if let until = acknowledgedUntil {
            if now < until { signal = .acknowledged } else { acknowledgedUntil = nil }
        }
        guard signal != shown else { return nil }
        shown = signal
        return signal
    }

    /// A zone wins; among statuses, a ride that cannot be saved, then a refused configuration, then the rest.
    static func signal(for situation: Situation) -> LEDSignal {
        let signal = zoneOrStatus(situation)
        guard !signal.isZone else { return signal }
        if situation.stateReadOnly { return .stateReadOnly }
        return situation.lastGoodConfig ? .configRejected : signal
    }

    private static func zoneOrStatus(_ s: Situation) -> LEDSignal {
        if let power = s.powerZone, s.powerMeterConnected || !s.anySensorKnown {
            return shown(power, atDusk: s.sunsetWarning)
        }
        guard s.heartRateEnabled else {
            if s.sunsetWarning { return .sunsetSoon }
            return s.gpsFix ? .off : .noGPSFix
        }
        if s.straps.contains(.connected) || (s.straps.isEmpty && s.heartRateZone != nil) {
            if s.noSensorContact { return .noSensorContact }
            if let zone = s.heartRateZone { return shown(zone, atDusk: s.sunsetWarning) }
            return .searchingForStrap
        }
        return s.straps.contains(.lost) ? .strapLost : .searchingForStrap
    }

    private static func shown(_ zone: Zone, atDusk: Bool) -> LEDSignal {
        atDusk ? .zoneAtDusk(zone.zone, of: zone.of) : .zone(zone.zone, of: zone.of)
    }
}
