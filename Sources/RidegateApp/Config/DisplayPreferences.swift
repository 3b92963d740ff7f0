import Glibc
import RidegateCore

extension GatewayConfig {
    /// The units and clock a person reads: the config's `units` and `clock`, the clock from the locale
    /// (`LC_ALL`, `LC_TIME`, `LANG`, the first one set) when the config does not say.
    public var displayUnits: DisplayUnits {
        let locale = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { name -> String? in
            guard let value = getenv(name) else { return nil }
            let text = String(cString: value)
            return text.isEmpty ? nil : text
        }.first
        return DisplayUnits(system: units, clock: clock ?? DisplayUnits.Clock(locale: locale))
    }
}
