/// Estimates the wheel's circumference from GPS: over stretches where the fix is good and the bike moves
/// steadily, GPS distance divided by wheel revolutions. A tyre's real rolling circumference differs from the
/// nominal one by a few percent (pressure, wear, the rider's weight), which is a few percent of every
/// wheel-based distance in a tunnel or a forest.
public struct WheelCalibration: Sendable {
    /// How much good-fix distance the estimate needs before it is given.
    public static let minimumMetres = 500.0
    /// A fix counts when its HDOP is below this and the bike moves at least `minimumSpeed` m/s.
    public static let maximumHDOP = 2.0
    public static let minimumSpeed = 3.0
    /// Plausible road and gravel wheels (the estimate is refused outside).
    public static let plausibleMillimetres = 1500.0...2500.0

    private var metres = 0.0
    private var revolutions = 0.0

    public init() {}

    /// Adds one step between two fixes: the GPS distance, the wheel revolutions counted meanwhile, and
    /// whether both fixes were good (HDOP, speed). Steps that are not good are left out.
    public mutating func add(gpsMetres: Double, wheelRevolutions: Double, hdop: Double?, speed: Double?) {
        guard let hdop, hdop < Self.maximumHDOP, let speed, speed >= Self.minimumSpeed else { return }
        add(goodStretchMetres: gpsMetres, wheelRevolutions: wheelRevolutions)
    }

    /// Adds a stretch whose fixes were all good (checked by the caller, fix by fix).
    public mutating func add(goodStretchMetres gpsMetres: Double, wheelRevolutions: Double) {
        guard gpsMetres > 0, wheelRevolutions > 0, gpsMetres.isFinite, wheelRevolutions.isFinite else { return }
        // One step's own ratio must be plausible too, or a dropped sensor reading would bias the sum.
        let step = gpsMetres / wheelRevolutions * 1000
        guard Self.plausibleMillimetres.contains(step) else { return }
        metres += gpsMetres
        revolutions += wheelRevolutions
    }

    /// The circumference in millimetres, once enough good distance has been seen.
    public var estimateMillimetres: Double? {
        guard metres >= Self.minimumMetres, revolutions > 0 else { return nil }
        let estimate = metres / revolutions * 1000
        return Self.plausibleMillimetres.contains(estimate) ? estimate : nil
    }

    public var calibratedMetres: Double { metres }
}
