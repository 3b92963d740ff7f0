/// Patterns for three-colour (`led.mode = "rgb"`) and bar (`led.mode = "bar"`, one LED per zone) wiring.
/// Zones are steady; every status blinks, so no status can be mistaken for a zone.
public enum RGBLEDPatterns {
    public static let red: UInt8 = 1, green: UInt8 = 2, blue: UInt8 = 4

    /// Zone colours, coolest to hottest: blue, cyan, green, yellow, red, then magenta and white for
    /// seven-zone models. Zone 0 (below zone 1) is a dim-looking slow blue blink.
    static let zoneColours: [UInt8] = [blue, blue | green, green, red | green, red, red | blue, red | green | blue]

    /// The lines lit for `zone` of `top` zones: zone 0 blue (blinking slowly), the top zone red (blinking fast).
    static func zoneLines(_ zone: Int, of top: Int) -> UInt8 {
        if zone <= 0 { return blue }
        if zone >= top && top > 1 { return red }
        return zoneColours[min(zone, zoneColours.count) - 1]
    }

    /// The zone's colour as `#rrggbb`, the one the three-colour LED shows: what Home Assistant's zone sensor
    /// carries, so a dashboard or the phone's lock screen shows the zone as the bike does.
    public static func zoneColour(_ zone: Int, of top: Int) -> String {
        let lines = zoneLines(zone, of: top)
        let channel = { (line: UInt8) in lines & line != 0 ? "ff" : "00" }
        return "#" + channel(red) + channel(green) + channel(blue)
    }

    public static func pattern(for signal: LEDSignal) -> BlinkPattern {
        switch signal {
        case .off:
            return .off
        case .zone(let zone, let top):
            if zone <= 0 { return BlinkPattern(frames: [(150, blue), (5000, 0)]) }
            if zone >= top && top > 1 { return BlinkPattern(frames: [(100, red), (100, 0)]) } // top zone: red, fast
            return .steady(zoneLines(zone, of: top))
        case .searchingForStrap:
            return BlinkPattern(frames: [(1000, blue), (1000, 0)])
        case .strapLost:
            return BlinkPattern(frames: [(500, red), (500, blue)])
        case .noSensorContact:
            return BlinkPattern(frames: [(40, red | green | blue), (2960, 0)])
        case .noGPSFix:
            return BlinkPattern(frames: [(700, green | blue), (300, 0), (700, green | blue), (1300, 0)])
        case .zoneAtDusk(let zone, let top):
            // The zone's colour, interrupted by a white flash every 3 s.
            let base = pattern(for: .zone(zone, of: top))
            return BlinkPattern(frames: base.frames + [(2500, base.lines(atMilliseconds: 0)), (300, red | green | blue)])
        case .sunsetSoon:
            return BlinkPattern(frames: [(1200, red | green), (300, 0), (300, red | green), (1200, 0)])
        case .stateReadOnly:
            return BlinkPattern(frames: [(500, red), (500, red | green)]) // red and yellow in turn
        case .configRejected:
            return BlinkPattern(frames: [(500, red | blue), (500, 0)]) // magenta, blinking
        case .acknowledged:
            return BlinkPattern(frames: [(50, red | green | blue), (50, 0), (50, red | green | blue), (50, 0), (50, red | green | blue), (750, 0)])
        }
    }
}

public enum BarLEDPatterns {
    /// `lineCount` LEDs in a row: zone N lights the first N steadily; the top zone flashes them all.
    public static func pattern(for signal: LEDSignal, lineCount: Int) -> BlinkPattern {
        let all = UInt8(truncatingIfNeeded: (1 << min(lineCount, 8)) - 1)
        let last = UInt8(truncatingIfNeeded: 1 << max(0, min(lineCount, 8) - 1))
        switch signal {
        case .off:
            return .off
        case .zone(let zone, let top):
            if zone <= 0 { return BlinkPattern(frames: [(150, 1), (5000, 0)]) }
            if zone >= top && top > 1 { return BlinkPattern(frames: [(100, all), (100, 0)]) }
            return .steady(UInt8(truncatingIfNeeded: (1 << min(zone, 8)) - 1))
        case .searchingForStrap:
            return BlinkPattern(frames: [(1000, 1), (1000, 0)])
        case .strapLost:
            return BlinkPattern(frames: [(500, 1), (500, last)]) // the two ends alternate
        case .noSensorContact:
            return BlinkPattern(frames: [(40, all), (2960, 0)])
        case .noGPSFix:
            return BlinkPattern(frames: [(700, last), (300, 0), (700, last), (1300, 0)])
        case .zoneAtDusk(let zone, let top):
            let base = pattern(for: .zone(zone, of: top), lineCount: lineCount)
            return BlinkPattern(frames: base.frames + [(2500, base.lines(atMilliseconds: 0)), (300, base.lines(atMilliseconds: 0) | last)])
        case .sunsetSoon:
            return BlinkPattern(frames: [(1200, last), (300, 0), (300, last), (1200, 0)])
        case .stateReadOnly:
            return BlinkPattern(frames: [(300, 1), (300, 0), (300, 1), (300, 0), (1200, 1), (1200, 0)]) // the first LED, short-short-long
        case .configRejected:
            return BlinkPattern(frames: [(1200, last), (300, 0), (300, last), (300, 0), (300, last), (1200, 0)]) // the last LED, long-short-short
        case .acknowledged:
            return BlinkPattern(frames: [(50, all), (50, 0), (50, all), (50, 0), (50, all), (750, 0)])
        }
    }
}

/// Which pattern family a wiring uses.
public enum LEDLayout: Sendable, Equatable {
    case single
    case rgb
    case bar(lines: Int)

    public func pattern(for signal: LEDSignal) -> BlinkPattern {
        switch self {
        case .single: SingleLEDPatterns.pattern(for: signal)
        case .rgb: RGBLEDPatterns.pattern(for: signal)
        case .bar(let n): BarLEDPatterns.pattern(for: signal, lineCount: n)
        }
    }
}
