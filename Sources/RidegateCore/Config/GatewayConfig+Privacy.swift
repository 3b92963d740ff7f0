/// `[[privacy_zone]]`: circles where no position is published live (`PrivacyZones`).
extension GatewayConfig {
    /// A training site's smallest privacy zone is about 200 m; under 50 m a GPS's own scatter would show the place.
    static let privacyZoneRadius: ClosedRange<Double> = 50...10_000

    static func privacyZones(_ top: inout ConfigTableReader, file: String) throws(ConfigError) -> PrivacyZones {
        guard let node = top.node("privacy_zone") else { return PrivacyZones() }
        guard case .array(let items) = node.value else {
            throw top.error("privacy_zone", node, "write each zone as its own [[privacy_zone]] table (name, latitude, longitude, radius_m)")
        }
        var zones: [PrivacyZones.Zone] = []
        for (index, item) in items.enumerated() {
            var z = try ConfigTableReader(file: file, path: "privacy_zone[\(index + 1)]", node: item)
            for key in ["latitude", "longitude"] where z.table[key] == nil {
                throw top.error("privacy_zone", item, "privacy zone \(index + 1) has no \(key); add the centre as latitude = 40.0150, longitude = -105.2705 (degrees)")
            }
            let name = try z.string("name", default: "zone \(index + 1)", maxBytes: 64)
            let latitude = try z.number("latitude", default: 0, range: -90...90)
            let longitude = try z.number("longitude", default: 0, range: -180...180)
            let radius = try z.number("radius_m", default: 400, range: privacyZoneRadius)
            let home = try z.bool("home", default: false)
            try z.finish()
            zones.append(PrivacyZones.Zone(name: name, latitude: latitude, longitude: longitude, radiusMeters: radius, home: home))
        }
        return PrivacyZones(zones)
    }
}
