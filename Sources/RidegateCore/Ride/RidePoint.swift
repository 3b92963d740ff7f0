/// One moment of a ride as the ride log keeps it: when (GPS time, or the time reference's best before a fix),
/// where (when there was a position: none indoors or in a tunnel), how far so far, whether the bike was moving
/// then, and what the sensors said (each only when it was fresh: a strap that went quiet does not repeat its
/// last heart rate on every point).
public struct RidePoint: Sendable, Equatable {
    public var time: Timestamp
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var speed: Double?
    /// The ride's distance at this point, metres.
    public var distance: Double
    /// Moving or stopped, by the ride's one rule (`MotionRule`): what auto-pause, timer time and moving time follow.
    public var moving: Bool
    public var heartRate: Int?
    public var cadence: Double?
    public var power: Int?

    public init(time: Timestamp, latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil, speed: Double? = nil,
                distance: Double = 0, moving: Bool = false, heartRate: Int? = nil, cadence: Double? = nil, power: Int? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.distance = distance
        self.moving = moving
        self.heartRate = heartRate
        self.cadence = cadence
        self.power = power
    }

    /// Both coordinates, when the point has a position.
    public var position: (latitude: Double, longitude: Double)? {
        guard let latitude, let longitude, latitude.isFinite, longitude.isFinite else { return nil }
        return (latitude, longitude)
    }
}
