/// Patterns for one LED (`led.mode = "single"`), chosen so that no status ever looks like a zone:
/// zones are short (150 ms) blinks counted in a burst, statuses are long pulses or single flashes.
public enum SingleLEDPatterns {
    static let blinkOn = 150
    static let blinkOff = 250
    static let burstPause = 1500

    public static func pattern(for signal: LEDSignal) -> BlinkPattern {
        switch signal {
        case .off:
            return .off
        case .zone(let zone, let top):
            if zone >= top && top > 1 {
                return BlinkPattern([(100, true), (100, false)]) // top zone: fast, steady blinking
            }
            if zone <= 0 {
                return BlinkPattern([(blinkOn, true), (5000, false)]) // below zone 1: a lone blink, long pause
            }
            var steps: [(milliseconds: Int, on: Bool)] = []
            for _ in 0..<zone { steps += [(blinkOn, true), (blinkOff, false)] }
            steps.append((burstPause, false))
            return BlinkPattern(steps)
        case .searchingForStrap:
            return BlinkPattern([(1000, true), (1000, false)]) // slow, even
        case .strapLost:
            return BlinkPattern([(2000, true), (500, false)]) // mostly on
        case .noSensorContact:
            return BlinkPattern([(40, true), (2960, false)]) // a flicker every 3 s
        case .noGPSFix:
            return BlinkPattern([(700, true), (300, false), (700, true), (1300, false)]) // two long pulses
        case .zoneAtDusk(let zone, let top):
            // The zone's own pattern, then one long 600 ms pulse in its pause: no zone has a long pulse.
            var steps = pattern(for: .zone(zone, of: top)).steps
            steps += [(400, false), (600, true), (900, false)]
            return BlinkPattern(steps)
        case .sunsetSoon:
            return BlinkPattern([(1200, true), (300, false), (300, true), (1200, false)]) // long-short
        case .stateReadOnly:
            return BlinkPattern([(300, true), (300, false), (300, true), (300, false), (1200, true), (1200, false)]) // short-short-long
        case .configRejected:
            return BlinkPattern([(1200, true), (300, false), (300, true), (300, false), (300, true), (1200, false)]) // long-short-short
        case .acknowledged:
            return BlinkPattern([(50, true), (50, false), (50, true), (50, false), (50, true), (750, false)]) // a quick flicker
        }
    }
}
