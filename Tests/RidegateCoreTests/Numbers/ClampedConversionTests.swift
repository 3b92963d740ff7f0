import RidegateCore
import Testing

struct ClampedConversionTests {
    @Test("A Double made an Int: rounded, held in its range, ±infinity to the ends, NaN to nil; never a trap")
    func roundingWithin() {
        #expect(Int(rounding: 2.5, within: 0...10) == 3)
        #expect(Int(rounding: -0.4, within: -5...5) == 0)
        #expect(Int(rounding: 11, within: 0...10) == 10)
        #expect(Int(rounding: -3, within: 0...10) == 0)
        #expect(Int(rounding: .infinity, within: 0...250) == 250)
        #expect(Int(rounding: -.infinity, within: 0...250) == 0)
        #expect(Int(rounding: .nan, within: 0...250) == nil)
        #expect(Int(rounding: 1e300, within: Int.min...Int.max) == Int.max)
        #expect(Int(rounding: -1e300, within: Int.min...Int.max) == Int.min)
        #expect(Int(rounding: 9.3e18, within: 0...Int.max) == Int.max)
    }
}
