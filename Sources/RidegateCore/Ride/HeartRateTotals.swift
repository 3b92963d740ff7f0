/// A ride's average and maximum heart rate, from every reading with skin contact (the average is over
/// readings, which a strap sends about once a second).
public struct HeartRateTotals: Sendable, Equatable {
    public private(set) var maximum: Int?
    private var sum = 0
    private var count = 0

    public init() {}

    public mutating func add(_ beatsPerMinute: Int) {
        guard beatsPerMinute > 0, beatsPerMinute < 300 else { return }
        sum += beatsPerMinute
        count += 1
        maximum = max(maximum ?? 0, beatsPerMinute)
    }

    public var average: Double? { count > 0 ? Double(sum) / Double(count) : nil }
}
