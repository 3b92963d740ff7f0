/// What the core keeps of one cycling sensor between its readings: its crank and wheel, and its power.
struct CyclingSensorState: Sendable {
    var crank = RevolutionTracker.crank()
    var wheel = RevolutionTracker.wheel()
    var power = PowerAverages()

    struct Step {
        var cadence: Double?
        var speed: Double?
        /// The wheel's new revolutions and the seconds they took (0 when the reading brought none).
        var wheelRevolutions = 0.0
        var wheelSeconds = 0.0
    }

    /// Cadence (rpm) and wheel speed (m/s) after this reading's revolution data, where there is any.
    mutating func update(wheel wheelData: RevolutionData?, crank crankData: RevolutionData?, at now: Double,
                         circumferenceMillimetres: Double) -> Step {
        let crankRate = crankData.flatMap { crank.update($0, at: now) }
        var step = Step(cadence: crankRate.map { $0 * 60 })
        if let wheelData {
            step.speed = wheel.update(wheelData, at: now).map { $0 * circumferenceMillimetres / 1000 }
            (step.wheelRevolutions, step.wheelSeconds) = wheel.lastStep
        }
        return step
    }
}
