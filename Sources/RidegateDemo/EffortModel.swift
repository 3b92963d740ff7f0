import Glibc
import RidegateApp
import RidegateCore

/// How hard a rider works at a speed and grade, and how the heart follows: cycling power from rolling
/// resistance, gravity and air drag, mapped onto the heart-rate reserve, then a first-order lag (the heart
/// takes tens of seconds to catch up with effort, faster going up than coming down).
struct EffortModel: Sendable {
    var restingHeartRate = 62.0
    var maxHeartRate = 186.0
    var riderAndBikeKilograms = 85.0
    /// Power the rider holds at about 90 % of heart-rate reserve.
    var ftp = 230.0
    var riseTimeConstant = 22.0
    var fallTimeConstant = 45.0

    func watts(speed: Double, grade: Double) -> Double {
        let g = 9.81, crr = 0.005, cdA = 0.38, rho = 1.2
        let force = riderAndBikeKilograms * g * (crr + grade) + 0.5 * rho * cdA * speed * speed
        return max(0, force * speed)
    }

    func steadyStateHeartRate(watts: Double) -> Double {
        let fraction = min(1.05, 0.12 + 0.78 * watts / ftp)
        return restingHeartRate + (maxHeartRate - restingHeartRate) * fraction
    }

    /// One step of the heart's response toward `target` over `dt` seconds.
    func respond(current: Double, target: Double, dt: Double) -> Double {
        let tau = target > current ? riseTimeConstant : fallTimeConstant
        return current + (target - current) * (1 - exp(-dt / tau))
    }
}
