/// What the core keeps of one cycling sensor between its readings: its crank and wheel, and its power.
struct CyclingSensorState: Sendable {
    var crank = RevolutionTracker.crank()
    var wheel = RevolutionTracker.wheel()
    var power = PowerAverages()

    /// Cadence (rpm) and wheel speed (m/s) after this reading's revolution data, where there is any.
    mutating func update(wheel wheelData: RevolutionData?, crank crankData: RevolutionData?, at now: Double,
                         circumferenceMillimetres: Double) -> (cadence: Double?, speed: Double?) {
        let crankRate = crankData.flatMap { crank.update($0, at: now) }
        let wheelRate = wheelData.flatMap { wheel.update($0, at: now) }
        return (crankRate.map { $0 * 60 }, wheelRate.map { $0 * circumferenceMillimetres / 1000 })
    }
}
