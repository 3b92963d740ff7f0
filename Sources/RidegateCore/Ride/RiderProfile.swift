/// Who rides, for what only the rider's body tells: calories from heart rate (the config's `[rider]`).
public struct RiderProfile: Sendable, Equatable {
    public enum Sex: String, Sendable, CaseIterable {
        case female, male
    }

    public var weightKilograms: Double
    public var age: Int
    public var sex: Sex

    public init(weightKilograms: Double, age: Int, sex: Sex) {
        self.weightKilograms = weightKilograms
        self.age = age
        self.sex = sex
    }

    /// Energy spent per second at a heart rate, kcal: Keytel et al. (2005), "Prediction of energy expenditure
    /// from heart rate monitoring during submaximal exercise", the formula head units use without a VO2max.
    /// Never below zero (a resting heart rate gives nothing, not a negative).
    public func kilocaloriesPerSecond(heartRate: Int) -> Double {
        let hr = Double(heartRate), weight = weightKilograms, age = Double(self.age)
        let perMinute = switch sex {
        case .male: (-55.0969 + 0.6309 * hr + 0.1988 * weight + 0.2017 * age) / 4.184
        case .female: (-20.4022 + 0.4472 * hr - 0.1263 * weight + 0.074 * age) / 4.184
        }
        return max(0, perMinute / 60)
    }
}
