/// OwnTracks' messages, as its JSON booklet (owntracks.org/booklet/tech/json) specifies them and its apps and Home
/// Assistant's owntracks integration read them: `_type` first, whole numbers where the booklet says integer, and a
/// field left out (not null) when it is not known.
extension Payloads {
    /// `_type: location`: `tst` epoch seconds, `lat`/`lon` degrees, `acc` metres (5 m × HDOP, as `position`'s),
    /// `alt` metres, `vel` whole km/h, `cog` whole degrees.
    public static func ownTracksLocation(_ fix: GPSFix, trackerID: String, ts: Timestamp) -> String {
        var json = JSONObjectWriter(capacity: 160)
        json.add("_type", "location")
        json.add("tid", trackerID)
        json.add("tst", Int(rounding: ts.secondsSince1970, within: 0...Int.max) ?? 0)
        json.add("lat", fix.latitude, decimals: 7)
        json.add("lon", fix.longitude, decimals: 7)
        // At least 1: Home Assistant's owntracks integration ignores a location whose acc is 0 (or missing).
        json.add("acc", Int(rounding: 5 * (fix.hdop ?? 1), within: 1...100_000) ?? 5)
        if let altitude = fix.altitudeMSL, let whole = Int(rounding: altitude, within: -20_000...100_000) { json.add("alt", whole) }
        if let speed = fix.speedMetersPerSecond, let whole = Int(rounding: speed * 3.6, within: 0...2_000) { json.add("vel", whole) }
        if let track = fix.trackDegrees, let whole = Int(rounding: track, within: 0...360) { json.add("cog", whole % 360) }
        return json.finish()
    }

    /// `_type: lwt`: the device went away; `tst` is when it came (the booklet: when it first connected).
    public static func ownTracksGoingAway(since: Timestamp) -> String {
        var json = JSONObjectWriter(capacity: 40)
        json.add("_type", "lwt")
        json.add("tst", Int(rounding: since.secondsSince1970, within: 0...Int.max) ?? 0)
        return json.finish()
    }
}
