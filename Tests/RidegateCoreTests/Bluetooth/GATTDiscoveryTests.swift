import RidegateCore
import Testing

/// The rules for what a peer's discovery responses may say, on every handle at the edges of the range.
@Suite struct GATTDiscoveryTests {
    func declaration(_ handle: UInt16, value valueHandle: UInt16, uuid: [UInt8] = [0x37, 0x2A]) -> [UInt8] {
        [0x10, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + uuid
    }

    @Test("Declarations: inside the range, value handle after the declaration and inside, 16- or 128-bit UUID")
    func characteristics() {
        let range: ClosedRange<UInt16> = 0x0010...0x0020
        #expect(GATTDiscovery.characteristic(handle: 0x0012, value: declaration(0x0012, value: 0x0013), in: range) != nil)
        #expect(GATTDiscovery.characteristic(handle: 0x0000, value: declaration(0x0000, value: 0x0001), in: 0...0x20) == nil)
        #expect(GATTDiscovery.characteristic(handle: 0x0012, value: declaration(0x0012, value: 0x0012), in: range) == nil)
        #expect(GATTDiscovery.characteristic(handle: 0x0012, value: declaration(0x0012, value: 0x0021), in: range) == nil)
        #expect(GATTDiscovery.characteristic(handle: 0x000F, value: declaration(0x000F, value: 0x0011), in: range) == nil)
        #expect(GATTDiscovery.characteristic(handle: 0x0012, value: declaration(0x0012, value: 0x0013, uuid: [0x37]), in: range) == nil)
        #expect(
            GATTDiscovery.characteristic(handle: 0x0012, value: declaration(0x0012, value: 0x0013, uuid: Array(repeating: 1, count: 16)), in: range)
                != nil)
        // The whole handle space: a value handle at 0xFFFF is fine, nothing wraps.
        #expect(GATTDiscovery.characteristic(handle: 0xFFFE, value: declaration(0xFFFE, value: 0xFFFF), in: 1...0xFFFF)?.end == 0xFFFF)
    }

    @Test("Ends: where the next declaration begins; duplicates and disorder sorted out; overlaps keep no descriptors")
    func ends() {
        func c(_ d: UInt16, _ v: UInt16) -> GATTCharacteristic {
            GATTCharacteristic(uuid: .heartRateMeasurement, declaration: d, properties: 0x10, valueHandle: v, end: 0x0040)
        }
        let ordered = GATTDiscovery.ordered([c(0x0030, 0x0031), c(0x0010, 0x0011), c(0x0020, 0x0021), c(0x0010, 0x0011)], serviceEnd: 0x0040)
        #expect(ordered.map(\.declaration) == [0x0010, 0x0020, 0x0030])
        #expect(ordered.map(\.end) == [0x001F, 0x002F, 0x0040])
        let overlapping = GATTDiscovery.ordered([c(0x0010, 0x0015), c(0x0012, 0x0013)], serviceEnd: 0x0040)
        #expect(overlapping.map(\.end) == [0x0015, 0x0040])
    }

    @Test("The loop goes on only forward and inside the range")
    func progress() {
        #expect(GATTDiscovery.nextStart(after: [0x0012, 0x0018], from: 0x0010, end: 0x0020) == 0x0019)
        #expect(GATTDiscovery.nextStart(after: [0x0020], from: 0x0010, end: 0x0020) == nil) // reached the end
        #expect(GATTDiscovery.nextStart(after: [0x0005], from: 0x0010, end: 0x0020) == nil) // backwards
        #expect(GATTDiscovery.nextStart(after: [], from: 0x0010, end: 0x0020) == nil)
        #expect(GATTDiscovery.nextStart(after: [0xFFFF], from: 0x0001, end: 0xFFFF) == nil) // no wrap past 0xFFFF
    }

    @Test("Services: start ≥ 1, end ≥ start, from where the request began")
    func services() {
        let items: [(handle: UInt16, end: UInt16, value: [UInt8])] = [
            (0x0000, 0x0005, [0x0D, 0x18]), (0x0010, 0x000F, [0x0D, 0x18]), (0x0020, 0x002F, [0x0D, 0x18]), (0x0030, 0x0031, [0x0D]),
        ]
        #expect(GATTDiscovery.services(from: items, requestedFrom: 1).map(\.start) == [0x0020])
        #expect(GATTDiscovery.services(from: [(0x0005, 0x0006, [0x0D, 0x18])], requestedFrom: 0x0010).isEmpty)
    }
}
