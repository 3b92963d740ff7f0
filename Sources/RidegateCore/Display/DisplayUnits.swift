/// How numbers are shown to a person (`watch`, the demo's lines, `rides list`, `sun`): metric or imperial,
/// a 24- or 12-hour clock. MQTT payloads and ride files stay SI whatever this says.
public struct DisplayUnits: Sendable, Equatable {
    public enum System: String, Sendable, CaseIterable {
        case metric, imperial
    }

    public enum Clock: String, Sendable, CaseIterable {
        case twentyFourHour = "24h"
        case twelveHour = "12h"

        /// The clock a locale name (`LC_TIME`, `LANG`: `en_US.UTF-8`) reads: 12-hour where it is the custom
        /// (the US, Canada's English, Australia, the Philippines, India), 24-hour elsewhere and without one.
        public init(locale: String?) {
            let name = locale?.split(separator: ".").first.map(String.init) ?? ""
            self = ["en_US", "en_CA", "en_AU", "en_NZ", "en_PH", "en_IN"].contains(name) ? .twelveHour : .twentyFourHour
        }
    }

    public var system: System
    public var clock: Clock

    public init(system: System = .metric, clock: Clock = .twentyFourHour) {
        self.system = system
        self.clock = clock
    }

    private static let metresPerMile = 1609.344
    private static let metresPerFoot = 0.3048

    /// `28.1 km/h` or `17.5 mph`.
    public func speed(metresPerSecond mps: Double) -> String {
        switch system {
        case .metric: JSONObjectWriter.number(mps * 3.6, decimals: 1).withOneDecimal + " km/h"
        case .imperial: JSONObjectWriter.number(mps * 3600 / Self.metresPerMile, decimals: 1).withOneDecimal + " mph"
        }
    }

    /// `4.17 km` or `2.59 mi`.
    public func distance(metres: Double) -> String {
        switch system {
        case .metric: JSONObjectWriter.number(metres / 1000, decimals: 2) + " km"
        case .imperial: JSONObjectWriter.number(metres / Self.metresPerMile, decimals: 2) + " mi"
        }
    }

    /// `26 m` or `85 ft` (climbing, altitude).
    public func height(metres: Double) -> String {
        switch system {
        case .metric: "\(Int(rounding: metres, within: Int.min...Int.max) ?? 0) m"
        case .imperial: "\(Int(rounding: metres / Self.metresPerFoot, within: Int.min...Int.max) ?? 0) ft"
        }
    }

    /// `16:05` or `4:05 PM`, from a time of day in seconds since midnight (local).
    public func timeOfDay(secondsSinceMidnight seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded(.down))
        let hour = minutes / 60 % 24
        let minute = minutes % 60
        let mm = minute < 10 ? "0\(minute)" : "\(minute)"
        switch clock {
        case .twentyFourHour: return (hour < 10 ? "0\(hour)" : "\(hour)") + ":" + mm
        case .twelveHour: return "\(hour % 12 == 0 ? 12 : hour % 12):\(mm) \(hour < 12 ? "AM" : "PM")"
        }
    }

    /// `1:02:03` (hours not padded), for moving time and countdowns.
    public static func duration(seconds: Double) -> String {
        let s = Int(rounding: seconds.rounded(.down), within: 0...Int.max) ?? 0
        let m = s / 60 % 60, r = s % 60
        return "\(s / 3600):" + (m < 10 ? "0\(m)" : "\(m)") + ":" + (r < 10 ? "0\(r)" : "\(r)")
    }
}

private extension String {
    /// `28` → `28.0`: a speed keeps its one decimal, so a column does not jump.
    var withOneDecimal: String { contains(".") ? self : self + ".0" }
}
