/// What a BLE sensor measures, known from the GATT service it advertises.
public enum SensorKind: String, Sendable, CaseIterable {
    case heartRate = "heart_rate"
    case speedCadence = "speed_cadence"
    case power

    /// The service a sensor of this kind advertises (and its session subscribes to).
    public var service: BluetoothUUID {
        switch self {
        case .heartRate: .heartRateService
        case .speedCadence: .cyclingSpeedCadenceService
        case .power: .cyclingPowerService
        }
    }

    /// Which kind a device advertising several is for (lower first): a power meter that also advertises
    /// CSC is a power meter.
    public var precedence: Int {
        switch self {
        case .power: 0
        case .speedCadence: 1
        case .heartRate: 2
        }
    }

    /// For a person: what a sensor of this kind gives.
    public var measures: String {
        switch self {
        case .heartRate: "heart rate"
        case .speedCadence: "speed/cadence"
        case .power: "power"
        }
    }
}

extension AdvertisingData {
    /// The sensor kinds this device advertises, in a fixed order (a power meter may also advertise CSC).
    public var sensorKinds: [SensorKind] { SensorKind.allCases.filter { serviceUUIDs.contains($0.service) } }
}
