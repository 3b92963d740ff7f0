/// Circles around places the rider names (home, work): a position inside one is never published live (`gps`'s
/// coordinates, the device tracker's `position`, `sun`'s), as a training site's privacy zones hide a ride's ends.
/// The ride log keeps every point: what is hidden is only what leaves the Pi as it happens. A zone marked home also
/// ends a ride that stands in it (`LiveRide.standsAtHome`).
public struct PrivacyZones: Sendable, Equatable {
    public struct Zone: Sendable, Equatable {
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var radiusMeters: Double
        /// The rider's home: a ride that stands in it for `PrivacyZones.homeArrival` ends there.
        public var home: Bool

        public init(name: String, latitude: Double, longitude: Double, radiusMeters: Double, home: Bool = false) {
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.radiusMeters = radiusMeters
            self.home = home
        }

        /// Whether the point is inside the circle or on its edge.
        public func contains(latitude: Double, longitude: Double) -> Bool {
            GreatCircle.distanceMeters(lat1: self.latitude, lon1: self.longitude, lat2: latitude, lon2: longitude) <= radiusMeters
        }
    }

    public let zones: [Zone]

    public init(_ zones: [Zone] = []) {
        self.zones = zones
    }

    /// Whether a position there must not be published. A coordinate that is not finite cannot be placed, so it is
    /// hidden too (a receiver's garbage never reveals anything).
    public func hides(latitude: Double, longitude: Double) -> Bool {
        guard !zones.isEmpty else { return false }
        guard latitude.isFinite, longitude.isFinite else { return true }
        return zones.contains { $0.contains(latitude: latitude, longitude: longitude) }
    }

    /// GPS seconds a ride stands inside a home zone before it ends there.
    public static let homeArrival = 120.0

    /// Whether the position is inside a zone marked home.
    public func isHome(latitude: Double, longitude: Double) -> Bool {
        zones.contains { $0.home && $0.contains(latitude: latitude, longitude: longitude) }
    }

    /// Whether a fix's position must not be published (a fix without one has nothing to hide).
    public func hides(_ fix: GPSFix) -> Bool {
        guard let latitude = fix.latitude, let longitude = fix.longitude else { return false }
        return hides(latitude: latitude, longitude: longitude)
    }
}

/// The ride's files, for a rider who hides the zones there too (`ride.hide_privacy_zones_in_files`): the points
/// inside a zone keep their time, distance and sensors, not their position, so a file's map starts and ends at a
/// zone's edge while its totals stay the ride's.
extension PrivacyZones {
    public func hidingPosition(of point: RidePoint) -> RidePoint {
        guard let position = point.position, hides(latitude: position.latitude, longitude: position.longitude) else { return point }
        var hidden = point
        (hidden.latitude, hidden.longitude, hidden.altitude) = (nil, nil, nil)
        return hidden
    }

    /// The ride's and each lap's start and end positions, left out where inside a zone.
    public func hidingPositions(in summary: RideSummary) -> RideSummary {
        var hidden = summary
        hidden.statistics = hidingPositions(in: summary.statistics)
        for index in hidden.laps.indices { hidden.laps[index].statistics = hidingPositions(in: hidden.laps[index].statistics) }
        return hidden
    }

    private func hidingPositions(in statistics: RideStatistics) -> RideStatistics {
        var hidden = statistics
        if let start = statistics.startPosition, hides(latitude: start.latitude, longitude: start.longitude) { hidden.startPosition = nil }
        if let end = statistics.endPosition, hides(latitude: end.latitude, longitude: end.longitude) { hidden.endPosition = nil }
        return hidden
    }
}
