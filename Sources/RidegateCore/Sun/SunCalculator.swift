/// Sunrise, sunset, solar noon and twilight for a place and a local mean solar day, by solving for the
/// actual crossings of the Sun's altitude (not a single evaluation at noon, which is where the NOAA
/// spreadsheet loses up to a minute and gets polar transition days wrong).
///
/// The day is the UTC window `[date 00:00 UTC − lon/15 h, +24 h)`. Between a lower transit (solar midnight)
/// and the next upper transit (solar noon) the altitude only rises, and from noon to the next midnight it
/// only falls; so the window is cut at the transits and each monotonic piece holds at most one crossing of
/// a threshold, found by bisection to a millisecond. Grazing days (the Sun dips under the horizon for a few
/// minutes near the polar circle) are therefore not missed, as they are by sampling.
public enum SunCalculator {
    public enum Status: String, Sendable {
        case ok
        case polarDay = "polar_day"
        case polarNight = "polar_night"
        case riseOnly = "rise_only"
        case setOnly = "set_only"
    }

    /// Sunrise/sunset: the centre 0.8333° below the horizon (34' refraction + 16' semidiameter).
    public static let horizon = -0.8333
    public static let civil = -6.0
    public static let nautical = -12.0

    public struct Crossings: Sendable, Equatable {
        public var status: Status
        public var rise: Timestamp?
        public var set: Timestamp?
    }

    public struct Day: Sendable, Equatable {
        public var windowStart: Timestamp
        public var solarNoon: Timestamp?
        public var noonAltitude: Double?
        public var sun: Crossings
        public var civil: Crossings
        public var nautical: Crossings

        public var dayLengthSeconds: Double? {
            guard let rise = sun.rise, let set = sun.set, set > rise else {
                return sun.status == .polarDay ? 86_400 : (sun.status == .polarNight ? 0 : nil)
            }
            return set - rise
        }
    }

    /// The window for a date at a longitude (east positive).
    public static func windowStart(date: CivilDate, longitude: Double) -> Timestamp {
        Timestamp(date: date, secondsOfDay: -localMeanTimeOffset(longitude: longitude))
    }

    /// Local mean solar time minus UTC at a longitude (east positive), seconds: 4 minutes per degree.
    public static func localMeanTimeOffset(longitude: Double) -> Double { longitude / 15 * 3600 }

    /// The local mean solar day holding `time` at `longitude`: the day whose window `[windowStart, +24 h)`
    /// contains it.
    public static func solarDay(at time: Timestamp, longitude: Double) -> CivilDate {
        CivilDate(daysSince1970: Int(((time.secondsSince1970 + localMeanTimeOffset(longitude: longitude)) / 86_400).rounded(.down)))
    }

    public static func day(date: CivilDate, latitude: Double, longitude: Double) -> Day {
        let start = windowStart(date: date, longitude: longitude)
        let end = start + 86_400
        let altitude = { (t: Timestamp) in SolarPosition.altitude(at: t, latitude: latitude, longitude: longitude) }

        // Transits inside the window cut it into monotonic pieces.
        var cuts: [Timestamp] = [start]
        var upper: Timestamp?
        for transit in transits(from: start, to: end, longitude: longitude) {
            cuts.append(transit.time)
            if transit.upper, upper == nil { upper = transit.time }
        }
        cuts.append(end)

        func crossings(_ threshold: Double) -> Crossings {
            var rise: Timestamp?
            var set: Timestamp?
            var anyAbove = false
            for (a, b) in zip(cuts, cuts.dropFirst()) where b > a {
                let fa = altitude(a) - threshold
                let fb = altitude(b) - threshold
                if fa > 0 || fb > 0 { anyAbove = true }
                guard (fa <= 0) != (fb <= 0) else { continue }
                let t = bisect(a, b, fa) { altitude($0) - threshold }
                if fa <= 0 {
                    if rise == nil { rise = t }
                } else if set == nil {
                    set = t
                }
            }
            let status: Status
            switch (rise, set) {
            case (.some, .some): status = .ok
            case (.some, .none): status = .riseOnly
            case (.none, .some): status = .setOnly
            case (.none, .none): status = anyAbove ? .polarDay : .polarNight
            }
            return Crossings(status: status, rise: rise, set: set)
        }

        return Day(windowStart: start, solarNoon: upper, noonAltitude: upper.map(altitude),
                   sun: crossings(horizon), civil: crossings(civil), nautical: crossings(nautical))
    }

    /// Upper (hour angle 0) and lower (±180°) transits in `[from, to)`.
    static func transits(from: Timestamp, to: Timestamp, longitude: Double) -> [(time: Timestamp, upper: Bool)] {
        var result: [(Timestamp, Bool)] = []
        // The hour angle grows ~360.99° a day; step an hour at a time and refine where it wraps.
        var t = from
        var previous = SolarPosition.hourAngle(at: t, longitude: longitude)
        while t < to {
            let next = min(t + 3600, to)
            let h = SolarPosition.hourAngle(at: next, longitude: longitude)
            if previous < 0, h >= 0 {
                result.append((bisect(t, next, previous) { SolarPosition.hourAngle(at: $0, longitude: longitude) }, true))
            } else if previous > 90, h < -90 {
                // Wrapped through ±180: lower transit. Solve on the unwrapped angle.
                let unwrapped = { (x: Timestamp) -> Double in
                    let a = SolarPosition.hourAngle(at: x, longitude: longitude)
                    return a < 0 ? a + 360 - 180 : a - 180
                }
                result.append((bisect(t, next, unwrapped(t), unwrapped), false))
            }
            previous = h
            t = next
        }
        return result.filter { $0.0 >= from && $0.0 < to }
    }

    /// Bisection on a sign change of `f` in [a, b] (f(a) given), to 1 ms.
    static func bisect(_ a: Timestamp, _ b: Timestamp, _ fa: Double, _ f: (Timestamp) -> Double) -> Timestamp {
        var lo = a, hi = b, flo = fa
        while hi - lo > 0.001 {
            let mid = lo + (hi - lo) / 2
            let fm = f(mid)
            if (fm <= 0) == (flo <= 0) {
                lo = mid
                flo = fm
            } else {
                hi = mid
            }
        }
        return lo + (hi - lo) / 2
    }
}
