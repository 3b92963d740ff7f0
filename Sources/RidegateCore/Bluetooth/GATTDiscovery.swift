/// A primary service: its attribute handle range.
public struct GATTService: Sendable, Equatable {
    public var uuid: BluetoothUUID
    public var start: UInt16
    public var end: UInt16

    public init(uuid: BluetoothUUID, start: UInt16, end: UInt16) {
        self.uuid = uuid
        self.start = start
        self.end = end
    }
}

/// A characteristic: its declaration, properties, value handle, and the last handle of its descriptors.
public struct GATTCharacteristic: Sendable, Equatable {
    public var uuid: BluetoothUUID
    public var declaration: UInt16
    public var properties: UInt8
    public var valueHandle: UInt16
    public var end: UInt16

    public init(uuid: BluetoothUUID, declaration: UInt16, properties: UInt8, valueHandle: UInt16, end: UInt16) {
        self.uuid = uuid
        self.declaration = declaration
        self.properties = properties
        self.valueHandle = valueHandle
        self.end = end
    }

    public var canNotify: Bool { properties & 0x10 != 0 }
    public var canIndicate: Bool { properties & 0x20 != 0 }
    public var canRead: Bool { properties & 0x02 != 0 }
}

/// What a GATT client may believe of a peer's discovery responses (Core Spec v5.4 Vol 3 Part G §4.4–4.7).
/// Every handle, range and order comes from the peer, and any BLE device nearby that advertises a sensor
/// service is a peer: a declaration at handle 0, a range that ends before it starts, handles that go
/// backwards or outside the range asked about are dropped here, so no arithmetic on them can overflow and
/// no discovery loop can be kept from finishing.
public enum GATTDiscovery {
    /// The services in a Read By Group Type response that make sense: start ≥ 1, end ≥ start, a 16- or
    /// 128-bit UUID, inside `start...0xFFFF`.
    public static func services(from items: [(handle: UInt16, end: UInt16, value: [UInt8])], requestedFrom start: UInt16) -> [GATTService] {
        items.compactMap { item in
            guard item.handle >= max(1, start), item.end >= item.handle, let uuid = BluetoothUUID(bytes: item.value[...]) else { return nil }
            return GATTService(uuid: uuid, start: item.handle, end: item.end)
        }
    }

    /// A characteristic declaration from a Read By Type response (properties, value handle, UUID), if it is
    /// inside the range asked about and its value handle follows it inside the service.
    public static func characteristic(handle: UInt16, value: [UInt8], in range: ClosedRange<UInt16>) -> GATTCharacteristic? {
        guard value.count == 5 || value.count == 19, range.contains(handle), handle >= 1 else { return nil }
        let valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
        guard valueHandle > handle, valueHandle <= range.upperBound, let uuid = BluetoothUUID(bytes: value[3...]) else { return nil }
        return GATTCharacteristic(uuid: uuid, declaration: handle, properties: value[0], valueHandle: valueHandle, end: range.upperBound)
    }

    /// Characteristics in handle order, each once, each ending where the next declaration begins (the last
    /// at the service's end); one whose successor starts at or before its value handle keeps no descriptors.
    public static func ordered(_ found: [GATTCharacteristic], serviceEnd: UInt16) -> [GATTCharacteristic] {
        var unique: [GATTCharacteristic] = []
        for c in found.sorted(by: { $0.declaration < $1.declaration }) where unique.last?.declaration != c.declaration {
            unique.append(c)
        }
        for index in unique.indices {
            let next = index + 1 < unique.count ? unique[index + 1].declaration : nil
            // `next` > this declaration ≥ 1, so `next - 1` cannot underflow.
            let end = next.map { $0 - 1 } ?? serviceEnd
            unique[index].end = max(unique[index].valueHandle, min(end, serviceEnd))
        }
        return unique
    }

    /// Where the next request of a discovery loop starts, or nil when the loop is done: after the last
    /// handle answered, only if that moved forward and stays inside the range.
    public static func nextStart(after handles: [UInt16], from start: UInt16, end: UInt16) -> UInt16? {
        guard let last = handles.max(), last >= start, last < end else { return nil }
        return last + 1
    }
}
