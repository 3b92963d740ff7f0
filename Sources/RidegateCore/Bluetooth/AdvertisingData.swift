/// Advertising and scan-response data (Core Spec v5.4 Vol 3 Part C §11; Supplement to the Core Spec
/// Part A): length-type-value structures. What a strap scanner needs from them.
public struct AdvertisingData: Sendable, Equatable {
    public var flags: UInt8?
    public var serviceUUIDs: [BluetoothUUID] = []
    public var localName: String?
    public var nameIsComplete = false
    public var txPower: Int8?
    public var appearance: UInt16?
    /// Where parsing stopped on a malformed structure (a length running past the end); what came before
    /// it is kept.
    public var malformedAt: Int?

    public var advertisesHeartRate: Bool { serviceUUIDs.contains(.heartRateService) }

    public init(parsing bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 { break } // early terminator: the rest is padding
            guard index + 1 + length <= bytes.count else {
                malformedAt = index
                break
            }
            let type = bytes[index + 1]
            let value = bytes[(index + 2)..<(index + 1 + length)]
            switch type {
            case 0x01: // Flags
                flags = value.first
            case 0x02, 0x03: // Incomplete / complete list of 16-bit service UUIDs
                var i = value.startIndex
                while i + 1 < value.endIndex {
                    if let uuid = BluetoothUUID(bytes: value[i..<(i + 2)]) { serviceUUIDs.append(uuid) }
                    i += 2
                }
            case 0x06, 0x07: // Incomplete / complete list of 128-bit service UUIDs
                var i = value.startIndex
                while i + 15 < value.endIndex {
                    if let uuid = BluetoothUUID(bytes: value[i..<(i + 16)]) { serviceUUIDs.append(uuid) }
                    i += 16
                }
            case 0x08, 0x09: // Shortened / complete local name
                // A complete name wins over a shortened one from the other packet.
                if type == 0x09 || !nameIsComplete {
                    localName = String(decoding: value, as: UTF8.self)
                    nameIsComplete = type == 0x09
                }
            case 0x0A: // TX power level
                txPower = value.first.map { Int8(bitPattern: $0) }
            case 0x16: // Service data, 16-bit UUID: the UUID says the service is there
                if value.count >= 2, let uuid = BluetoothUUID(bytes: value.prefix(2)), !serviceUUIDs.contains(uuid) {
                    serviceUUIDs.append(uuid)
                }
            case 0x19: // Appearance
                if value.count == 2 { appearance = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8 }
            default:
                break
            }
            index += 1 + length
        }
    }

    /// Advertising data merged with its scan response (names and UUIDs often sit in the response).
    public mutating func merge(_ other: AdvertisingData) {
        flags = flags ?? other.flags
        for uuid in other.serviceUUIDs where !serviceUUIDs.contains(uuid) { serviceUUIDs.append(uuid) }
        if other.localName != nil, other.nameIsComplete || localName == nil {
            localName = other.localName
            nameIsComplete = other.nameIsComplete
        }
        txPower = txPower ?? other.txPower
        appearance = appearance ?? other.appearance
    }
}
