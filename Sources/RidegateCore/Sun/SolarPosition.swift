import Glibc

/// The Sun's apparent position, from Meeus, *Astronomical Algorithms* (2nd ed.), ch. 25 (solar
/// coordinates, with the nutation and aberration corrections of the "apparent" longitude), ch. 22
/// (obliquity) and ch. 12 (sidereal time). About 0.01° in longitude for 1950–2050: at sunrise a few
/// seconds of time, well inside the 15 s the gateway promises.
public enum SolarPosition {
    /// TT − UT, seconds. 69 s for the 2020s (IERS); an error of a few seconds here moves events by
    /// a few hundredths of a second.
    static let deltaT = 69.2

    struct Equatorial {
        /// Right ascension and declination, radians.
        var rightAscension: Double
        var declination: Double
        /// Greenwich apparent sidereal time, radians.
        var siderealTime: Double
    }

    static func equatorial(at time: Timestamp) -> Equatorial {
        let toRadians = Double.pi / 180
        let jdUT = time.secondsSince1970 / 86_400 + 2_440_587.5
        let t = (jdUT + deltaT / 86_400 - 2_451_545.0) / 36_525 // Julian centuries of TT since J2000

        let l0 = 280.46646 + t * (36_000.76983 + t * 0.0003032)
        let m = (357.52911 + t * (35_999.05029 - t * 0.0001537)) * toRadians
        let center = (1.914602 - t * (0.004817 + t * 0.000014)) * sin(m)
            + (0.019993 - t * 0.000101) * sin(2 * m) + 0.000289 * sin(3 * m)
        let omega = (125.04 - 1934.136 * t) * toRadians
        // Apparent longitude: true longitude, minus aberration (20.5") and nutation in longitude.
        let lambda = (l0 + center - 0.00569 - 0.00478 * sin(omega)) * toRadians
        let epsilon0 = 23.0 + (26.0 + (21.448 - t * (46.8150 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let epsilon = (epsilon0 + 0.00256 * cos(omega)) * toRadians

        let rightAscension = atan2(cos(epsilon) * sin(lambda), cos(lambda))
        let declination = asin(sin(epsilon) * sin(lambda))

        let d = jdUT - 2_451_545.0
        let tu = d / 36_525
        var gmst = 280.46061837 + 360.98564736629 * d + tu * tu * (0.000387933 - tu / 38_710_000)
        // Equation of the equinoxes: nutation in longitude (≈ −17.2" sin Ω) projected on the equator.
        gmst += (-17.2 / 3600) * sin(omega) * cos(epsilon)
        return Equatorial(rightAscension: rightAscension, declination: declination,
                          siderealTime: gmst.truncatingRemainder(dividingBy: 360) * toRadians)
    }

    /// Geometric altitude of the Sun's centre, degrees (no refraction: event thresholds include it).
    public static func altitude(at time: Timestamp, latitude: Double, longitude: Double) -> Double {
        let toRadians = Double.pi / 180
        let sun = equatorial(at: time)
        let hourAngle = sun.siderealTime + longitude * toRadians - sun.rightAscension
        let phi = latitude * toRadians
        let s = sin(phi) * sin(sun.declination) + cos(phi) * cos(sun.declination) * cos(hourAngle)
        return asin(max(-1, min(1, s))) / toRadians
    }

    /// Local hour angle, degrees in (−180, 180]: 0 at upper transit (solar noon), ±180 at lower transit.
    public static func hourAngle(at time: Timestamp, longitude: Double) -> Double {
        let sun = equatorial(at: time)
        var h = (sun.siderealTime - sun.rightAscension) * 180 / Double.pi + longitude
        h = h.truncatingRemainder(dividingBy: 360)
        if h > 180 { h -= 360 }
        if h <= -180 { h += 360 }
        return h
    }
}
