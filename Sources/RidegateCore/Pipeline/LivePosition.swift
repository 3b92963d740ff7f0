/// Where the bike is, for those who follow it: Home Assistant's device tracker (`position`, at most every
/// `positionInterval` s of GPS time) and, when configured, OwnTracks' location (`owntracks/<user>/<device>`, at its
/// own interval, while the ride moves or always). Neither is published from inside a privacy zone.
struct LivePosition: Sendable {
    private let trackerInterval: Double
    private let privacyZones: PrivacyZones
    private let ownTracks: OwnTracksSettings?
    /// When each last went (GPS seconds).
    private var schedule = TopicLedger()
    /// The first fix's time: OwnTracks' `lwt` says when the device came.
    private var firstFix: Timestamp?

    private static let ownTracksSchedule = "owntracks"

    init(settings: GatewayCore.Settings) {
        trackerInterval = settings.positionInterval
        privacyZones = settings.privacyZones
        ownTracks = settings.ownTracks
    }

    /// A fix with a position whose time is trusted: what is due of the tracker's and OwnTracks' messages.
    mutating func fix(_ fix: GPSFix, at ts: Timestamp, moving: Bool) -> [Publication] {
        guard let latitude = fix.latitude, let longitude = fix.longitude else { return [] }
        firstFix = firstFix ?? ts
        guard !privacyZones.hides(latitude: latitude, longitude: longitude) else { return [] }
        var due: [Publication] = []
        if schedule.due(Topic.position.name, at: ts.secondsSince1970, every: trackerInterval, whenTimeWentBack: true) {
            due.append(Publication(topic: .position, payload: Payloads.position(latitude: latitude, longitude: longitude, hdop: fix.hdop, ts: ts),
                                   retain: true))
        }
        if let ownTracks, moving || ownTracks.always,
           schedule.due(Self.ownTracksSchedule, at: ts.secondsSince1970, every: ownTracks.interval, whenTimeWentBack: true) {
            due.append(Publication(topic: ownTracks.topic, payload: Payloads.ownTracksLocation(fix, trackerID: ownTracks.trackerID, ts: ts),
                                   retain: true, absolute: true))
        }
        return due
    }

    /// At the orderly stop: OwnTracks' `lwt` (its retained location stays, the last place the bike was shown). QoS 0,
    /// as news of now: not spooled, so never replayed at a later start, when it would be false.
    func goingAway(at ts: Timestamp) -> [Publication] {
        guard let ownTracks else { return [] }
        return [Publication(topic: ownTracks.topic, payload: Payloads.ownTracksGoingAway(since: firstFix ?? ts), qos: 0, absolute: true)]
    }
}

/// `[owntracks]` as the core needs it: where OwnTracks' apps and Home Assistant's owntracks integration read a
/// device, and how often it moves.
public struct OwnTracksSettings: Sendable, Equatable {
    /// `owntracks/<user>/<device>`.
    public var topic: String
    /// The initials the apps show on the map (`tid`).
    public var trackerID: String
    /// GPS seconds between locations.
    public var interval: Double
    /// Also while the ride stands (paused, parked), not only while it moves.
    public var always: Bool

    public init(topic: String, trackerID: String, interval: Double, always: Bool) {
        self.topic = topic
        self.trackerID = trackerID
        self.interval = interval
        self.always = always
    }
}
