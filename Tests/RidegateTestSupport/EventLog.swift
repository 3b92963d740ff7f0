import RidegateCore

/// Events from a source running in the background, awaited as they arrive.
public typealias EventLog = Observed<[SourceEvent]>

extension [SourceEvent] {
    public var fixes: [GPSFix] { compactMap { if case .gpsFix(let f, _) = $0 { f } else { nil } } }
    public var states: [GPSDeviceState] { compactMap { if case .gpsState(let s, _) = $0 { s } else { nil } } }
}

extension Observed where Value == [SourceEvent] {
    @Sendable public func append(_ event: SourceEvent) { update { $0.append(event) } }
}
