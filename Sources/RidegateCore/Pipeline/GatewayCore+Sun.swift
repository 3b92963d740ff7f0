/// The sun for where the rider is: published when the day or the place changes, and as a countdown.
extension GatewayCore {
    /// Publishes the sun for a position remembered from an earlier run, before the first fix, stamped with
    /// the system clock (and saying so).
    public mutating func seedPosition(latitude: Double, longitude: Double, at receive: ReceiveTime) -> [Effect] {
        remembered = (latitude, longitude)
        return sunEffects(latitude: latitude, longitude: longitude, now: time.utc(for: receive), force: true)
    }

    /// The sun is republished when the solar day changes, when the rider has moved far enough for the
    /// times to shift, and every `sunPublishInterval` so the countdown moves; it is retained.
    mutating func sunEffects(latitude: Double, longitude: Double, now: Timestamp, force: Bool = false) -> [Effect] {
        guard settings.sunEnabled else { return [] }
        let date = SunCalculator.solarDay(at: now, longitude: longitude)
        var due = force || sun == nil
        if let last = sun {
            let moved = GreatCircle.distanceMeters(lat1: last.latitude, lon1: last.longitude, lat2: latitude, lon2: longitude)
            due = due || last.date != date || moved >= settings.sunMoveThresholdMeters || now - last.published >= settings.sunPublishInterval
        }
        guard due else { return [] }
        let report = SunReport(latitude: latitude, longitude: longitude, now: now, warningLead: settings.sunsetWarningLead)
        sun = (date, latitude, longitude, now)
        sunsetWarning = report.sunsetWarning
        let seq = nextSequence(Topic.sun.name)
        var effects: [Effect] = [.publish(Publication(
            topic: .sun, payload: report.payload(ts: now, seq: seq, clockTrusted: time.isTrusted), retain: true, sequence: seq))]
        let far = remembered.map {
            GreatCircle.distanceMeters(lat1: $0.latitude, lon1: $0.longitude, lat2: latitude, lon2: longitude) >= 1000
        } ?? true
        if far {
            remembered = (latitude, longitude)
            effects.append(.rememberPosition(latitude: latitude, longitude: longitude))
        }
        return effects
    }
}
