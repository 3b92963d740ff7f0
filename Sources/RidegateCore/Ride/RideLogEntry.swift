/// What the ride log keeps, in the order it happened: the ride's points, where a lap ended, the sensors riding
/// along, and a ride ended on purpose (the lap button held).
public enum RideLogEntry: Sendable, Equatable {
    case point(RidePoint)
    case lap(LapMark)
    case device(RideDevice)
    /// The ride ends here, whatever the time since it last moved: the next movement starts a new one.
    case end(Timestamp)
}
