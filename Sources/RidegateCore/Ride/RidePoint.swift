/// One moment of a ride as the ride log keeps it: where (from a fix with a position, in GPS time), how far
/// so far, and what the sensors said then (each only when it was fresh: a strap that went quiet does not
/// repeat its last heart rate on every point).
public struct RidePoint: Sendable, Equatable {
    public var time: Timestamp
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var speed: Double?
    /// The ride's distance at this point, metres.
    public var distance: Double
    public var heartRate: Int?
    public var cadence: Double?
    public var power: Int?

    public init(time: Timestamp, latitude: Double, longitude: Double, altitude: Double? = nil, speed: Double? = nil,
                distance: Double = 0, heartRate: Int? = nil, cadence: Double? = nil, power: Int? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.distance = distance
        self.heartRate = heartRate
        self.cadence = cadence
        self.power = power
    }
}
