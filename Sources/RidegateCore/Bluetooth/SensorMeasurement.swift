/// What a BLE sensor's notification says, decoded by its kind's profile (`SensorProfile.decode`): the
/// measurements the core has a model of (zones, the ride's totals, the wheel), or values by key for a kind it
/// has none of, which are published as they are (`SensorProfile.readings`).
public enum SensorMeasurement: Sendable, Equatable {
    /// Heart Rate Measurement (0x2A37).
    case heartRate(HeartRateMeasurement)
    /// CSC Measurement (0x2A5B): wheel and/or crank revolutions.
    case speedCadence(CyclingSpeedCadenceMeasurement)
    /// Cycling Power Measurement (0x2A63).
    case power(CyclingPowerMeasurement)
    /// A kind without a model in the core: its values by key (`SensorProfile.readings` names them).
    case readings([String: Double])
}
