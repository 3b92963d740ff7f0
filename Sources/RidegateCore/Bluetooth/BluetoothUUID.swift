/// A GATT UUID: 16-bit SIG-assigned values or full 128-bit ones (Core Spec v5.4 Vol 3 Part B §2.5.1).
public enum BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    case short(UInt16)
    /// 16 bytes, little-endian as on the air.
    case long([UInt8])

    public static let heartRateService = BluetoothUUID.short(0x180D)
    public static let heartRateMeasurement = BluetoothUUID.short(0x2A37)
    public static let bodySensorLocation = BluetoothUUID.short(0x2A38)
    public static let cyclingSpeedCadenceService = BluetoothUUID.short(0x1816)
    public static let cscMeasurement = BluetoothUUID.short(0x2A5B)
    public static let cscFeature = BluetoothUUID.short(0x2A5C)
    public static let sensorLocation = BluetoothUUID.short(0x2A5D)
    public static let cyclingPowerService = BluetoothUUID.short(0x1818)
    public static let cyclingPowerMeasurement = BluetoothUUID.short(0x2A63)
    public static let cyclingPowerFeature = BluetoothUUID.short(0x2A65)
    public static let batteryService = BluetoothUUID.short(0x180F)
    public static let batteryLevel = BluetoothUUID.short(0x2A19)
    public static let deviceInformationService = BluetoothUUID.short(0x180A)
    public static let modelNumber = BluetoothUUID.short(0x2A24)
    public static let serialNumber = BluetoothUUID.short(0x2A25)
    public static let manufacturerName = BluetoothUUID.short(0x2A29)
    public static let genericAccess = BluetoothUUID.short(0x1800)
    public static let deviceName = BluetoothUUID.short(0x2A00)
    public static let primaryService = BluetoothUUID.short(0x2800)
    public static let characteristic = BluetoothUUID.short(0x2803)
    public static let clientCharacteristicConfiguration = BluetoothUUID.short(0x2902)

    /// Little-endian bytes, 2 or 16.
    public var bytes: [UInt8] {
        switch self {
        case .short(let v): [UInt8(v & 0xFF), UInt8(v >> 8)]
        case .long(let b): b
        }
    }

    public init?(bytes: ArraySlice<UInt8>) {
        switch bytes.count {
        case 2: self = .short(UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8)
        case 16:
            // A 128-bit UUID on the Bluetooth base (0000xxxx-0000-1000-8000-00805F9B34FB) is a short one.
            let base: [UInt8] = [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00]
            let b = Array(bytes)
            if Array(b[0..<12]) == base, b[14] == 0, b[15] == 0 {
                self = .short(UInt16(b[12]) | UInt16(b[13]) << 8)
            } else {
                self = .long(b)
            }
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .short(let v):
            let hex = String(v, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: 4 - hex.count) + hex
        case .long(let b): return b.reversed().hexString
        }
    }
}
