import Glibc

/// Distances on the Earth, as a sphere of the IUGG mean radius: at bicycle scale the error against the
/// ellipsoid is below 0.5 %, far under GPS noise.
public enum GreatCircle {
    public static let earthRadiusMeters = 6_371_008.8

    /// Haversine distance between two points in degrees.
    public static func distanceMeters(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (lat2 - lat1) * toRadians
        let dLon = (lon2 - lon1) * toRadians
        let a = sin(dLat / 2) * sin(dLat / 2)
            + cos(lat1 * toRadians) * cos(lat2 * toRadians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadiusMeters * asin(min(1, a.squareRoot()))
    }
}
