/// `[owntracks]`: the bike as a device of OwnTracks' (docs/config.md), for those who follow it without Home Assistant.
extension GatewayConfig {
    public struct OwnTracks: Sendable, Equatable {
        /// The topic's user level (`owntracks/<user>/<device>`): the rider, as family and friends know them.
        public var user = "ridegate"
        /// The topic's device level; nil: the gateway's device id.
        public var device: String?
        /// The initials the apps draw on the map (`tid`).
        public var trackerID = "RG"
        /// GPS seconds between locations.
        public var intervalSeconds = 30.0
        /// Also while the ride stands, not only while it moves.
        public var always = false

        public init() {}
    }

    /// nil without an `[owntracks]` table, or with `enabled = false`.
    static func ownTracks(_ table: ConfigTableReader) throws(ConfigError) -> OwnTracks? {
        var o = table
        guard o.tableLine != nil else { return nil }
        var ownTracks = OwnTracks()
        let enabled = try o.bool("enabled", default: true)
        ownTracks.user = try topicLevel(&o, "user", default: ownTracks.user)
        if o.table["device"] != nil { ownTracks.device = try topicLevel(&o, "device", default: "") }
        ownTracks.trackerID = try o.string("tracker_id", default: ownTracks.trackerID)
        guard (1...2).contains(ownTracks.trackerID.count), ownTracks.trackerID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw o.error("tracker_id", o.table["tracker_id"], "\"\(ownTracks.trackerID)\" must be one or two letters or digits, the initials the apps draw, e.g. \"JB\"")
        }
        ownTracks.intervalSeconds = try o.number("interval_s", default: ownTracks.intervalSeconds, range: 1...3600)
        ownTracks.always = try o.choice("when", default: "riding", allowed: ["riding", "always"]) == "always"
        try o.finish()
        return enabled ? ownTracks : nil
    }

    /// One level of an MQTT topic: not empty, no `/`, and none of the wildcards `+` and `#` a subscriber uses.
    private static func topicLevel(_ table: inout ConfigTableReader, _ key: String, default value: String) throws(ConfigError) -> String {
        let level = try table.string(key, default: value, maxBytes: 64)
        guard !level.isEmpty, !level.contains(where: { "/+#".contains($0) || $0.isNewline }) else {
            throw table.error(key, table.table[key], "\"\(level)\" must be one topic level: not empty, without /, + or #, e.g. \"jo\"")
        }
        return level
    }
}
