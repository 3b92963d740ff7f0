/// Where a ride ends and the next begins, on GPS time (never the Pi's clock): a point more than `newRideAfter`
/// seconds after the ride last moved ends it — standing, at once (the bike parked at home is exported and
/// uploaded there), and nothing is kept until the bike moves; moving, the point begins a new ride. So a restart
/// or a café stop continues the ride and the next morning does not. The next movement after a ride ended on
/// purpose begins a new one too, and a point before the ride's start (a clock set back) begins its own. Shorter
/// stops stay in the ride (auto-pause is the points' moving flag, not points left out); a point at or before the
/// ride's last is a repeated or old epoch and is not kept.
public struct RideBoundaries: Sendable {
    /// The ride points go into now.
    public struct OpenRide: Sendable {
        public var start: Double
        public var end: Double
        /// The last point that moved the bike.
        public var moved: Double
        public var points: Int

        public init(start: Double, end: Double, moved: Double, points: Int) {
            self.start = start
            self.end = end
            self.moved = moved
            self.points = points
        }
    }

    public enum Placement: Sendable, Equatable {
        /// Into the open ride, or into a first one when none is open.
        case add
        /// The open ride is over: it closes, and the point begins the next.
        case newRide
        /// The open ride is over (the bike stood longer than a stop): it closes, and neither this point nor any
        /// until the bike moves is kept.
        case park
        /// Not kept: a repeated or old epoch, or the bike still standing after its ride ended.
        case skip
    }

    public let newRideAfter: Double
    /// A ride ended (parked, or on purpose): nothing is kept until a point that moves.
    private var awaitingMovement = false

    public init(newRideAfter: Double) {
        self.newRideAfter = newRideAfter
    }

    /// Where a point at `time` goes. `pointMoving`: its own moving flag (what ends the wait after a ride ended);
    /// `moving`: that, or distance gained since the ride's last point.
    public mutating func place(time t: Double, pointMoving: Bool, moving: Bool, in ride: OpenRide?) -> Placement {
        if awaitingMovement {
            guard pointMoving else { return .skip }
            awaitingMovement = false
        }
        guard let ride else { return .add }
        if t - ride.moved > newRideAfter || t < ride.start {
            guard moving || t < ride.start else {
                awaitingMovement = true
                return .park
            }
            return .newRide
        }
        return t > ride.end || ride.points == 0 ? .add : .skip
    }

    /// The rider ended the ride: nothing is kept until the bike moves again.
    public mutating func rideEnded() {
        awaitingMovement = true
    }
}
