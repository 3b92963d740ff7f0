/// A `Double` made a whole number without a trap. `Int(_:)` traps on NaN, on ±infinity and on anything past
/// `Int`'s range, and a value worked out from outside input (a file's record, a sensor's reading, a clock) can
/// be any of them: such conversions go through here, and say what a NaN becomes.
extension Int {
    /// `value` rounded to the nearest whole number and held within `range` (±infinity to its ends); nil for NaN.
    public init?(rounding value: Double, within range: ClosedRange<Int>) {
        guard !value.isNaN else { return nil }
        // Compared as Doubles before converting: Double(Int.max) is 2^63, one past Int.max.
        if value >= Double(range.upperBound) {
            self = range.upperBound
        } else if value <= Double(range.lowerBound) {
            self = range.lowerBound
        } else {
            self = Int(value.rounded())
        }
    }
}
