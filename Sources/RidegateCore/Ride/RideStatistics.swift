/// A ride's (or a lap's) totals as a head unit writes them into its files, worked out from the ride's
/// once-a-second points: the one place every summary comes from (FIT session and laps, TCX laps,
/// `rides list`, `rides/last`).
///
/// - Elapsed time runs from the first point (or the lap's start) to the last; timer time, the moving time,
///   adds the seconds up to each moving point, except across gaps longer than `maximumGap`.
/// - Distance is the last point's less the first's (or the previous lap's end); average speed is distance over
///   timer time, as head units work it out.
/// - Averages of heart rate, cadence and power are over the time each reading held (up to `maximumGap` after
///   it), stops included, as the records of a head unit without auto-pause give them: power with its zeros,
///   cadence without (coasting is not pedalling). Work is power over that time; normalized power the fourth-
///   power mean of 30 s rolling averages, each second taking the power that held then.
/// - Ascent and descent as `ElevationTotals` smooths them, while moving; time in each zone from each second's
///   reading; calories from work with a power meter, else from heart rate when the rider is known.
public struct RideStatistics: Sendable, Equatable {
    public static let maximumGap = 10.0

    public var start: Timestamp
    public var end: Timestamp
    public var timerSeconds = 0.0
    public var distanceMeters = 0.0
    public var maximumSpeed: Double?
    public var averageHeartRate: Double?
    public var maximumHeartRate: Int?
    public var averageCadence: Double?
    public var maximumCadence: Int?
    public var averagePower: Double?
    public var maximumPower: Int?
    public var normalizedPower: Double?
    public var workJoules: Double?
    public var ascentMeters = 0.0
    public var descentMeters = 0.0
    public var calories: Double?
    public var heartRateZoneSeconds: [Double]?
    public var powerZoneSeconds: [Double]?
    /// Where it started and ended, when the points had positions.
    public var startPosition: (latitude: Double, longitude: Double)?
    public var endPosition: (latitude: Double, longitude: Double)?

    public var elapsedSeconds: Double { end - start }
    public var averageSpeed: Double? { timerSeconds > 0 ? distanceMeters / timerSeconds : nil }

    public static func == (a: RideStatistics, b: RideStatistics) -> Bool {
        a.start == b.start && a.end == b.end && a.timerSeconds == b.timerSeconds && a.distanceMeters == b.distanceMeters
            && a.averagePower == b.averagePower && a.averageHeartRate == b.averageHeartRate && a.calories == b.calories
            && a.heartRateZoneSeconds == b.heartRateZoneSeconds && a.powerZoneSeconds == b.powerZoneSeconds
    }

    /// The zones and the rider that some totals need.
    public struct Context: Sendable, Equatable {
        public var heartRateZones: ZoneBoundaries?
        public var powerZones: ZoneBoundaries?
        public var rider: RiderProfile?
        /// The functional threshold power the power zones come from (a FIT file's threshold_power).
        public var ftp: Int?
        /// Where a ride's start is not named by its place (`RideName`), and, when `hidesPrivacyZonesInFiles`, where its
        /// files show no position.
        public var privacyZones = PrivacyZones()
        public var hidesPrivacyZonesInFiles = false

        public init(heartRateZones: ZoneBoundaries? = nil, powerZones: ZoneBoundaries? = nil, rider: RiderProfile? = nil,
                    ftp: Int? = nil) {
            self.heartRateZones = heartRateZones
            self.powerZones = powerZones
            self.rider = rider
            self.ftp = ftp
        }
    }

    /// The totals of `points` (once a second, in time order); `before` is the point that ended the previous lap,
    /// so laps tile their ride: their times and distances add up to its.
    public static func of(_ points: some Sequence<RidePoint>, before: RidePoint? = nil, context: Context = Context()) -> RideStatistics? {
        var accumulator = Accumulator(context: context, before: before)
        for point in points { accumulator.add(point) }
        return accumulator.statistics
    }
}
