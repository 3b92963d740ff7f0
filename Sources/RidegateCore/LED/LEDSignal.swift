/// What the LED should tell the rider. Heart-rate state outranks GPS state: the zone is why the LED exists.
public enum LEDSignal: Sendable, Equatable, CustomStringConvertible {
    case off
    /// Zone 1…`of` (zone 0, below zone 1, shows as `.zone(0, …)`: a single short blink every few seconds).
    case zone(Int, of: Int)
    case searchingForStrap
    case strapLost
    case noSensorContact
    case noGPSFix
    /// The zone, with the sunset warning folded in (the rider still needs the zone).
    case zoneAtDusk(Int, of: Int)
    /// Sunset is near and there is no zone to show.
    case sunsetSoon
    /// The state directory cannot be written (a read-only state partition): the ride is kept in memory only
    /// and is lost if the power goes. Shown where a status would be; a zone still wins.
    case stateReadOnly
    /// The configuration file was refused (a mistake made on a laptop): the last good one runs. Shown like
    /// `stateReadOnly`, which outranks it.
    case configRejected
    /// The lap button was heard (a lap marked, or the ride ended): a quick flicker, then back to what it showed.
    case acknowledged

    /// Every status (what `ridegate led test` shows after the zones; none may look like a zone).
    public static let statuses: [LEDSignal] = [
        .searchingForStrap, .strapLost, .noSensorContact, .noGPSFix, .sunsetSoon, .stateReadOnly, .configRejected
    ]

    /// A zone, with or without the sunset warning.
    public var isZone: Bool {
        switch self {
        case .zone, .zoneAtDusk: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .off: "off"
        case .zone(let n, let top): "zone \(n)/\(top)"
        case .searchingForStrap: "searching for strap"
        case .strapLost: "strap lost"
        case .noSensorContact: "no sensor contact"
        case .noGPSFix: "no GPS fix"
        case .zoneAtDusk(let n, let top): "zone \(n)/\(top), sunset soon"
        case .sunsetSoon: "sunset soon"
        case .stateReadOnly: "state partition read-only"
        case .configRejected: "configuration refused, the last good one runs"
        case .acknowledged: "lap button heard"
        }
    }
}
