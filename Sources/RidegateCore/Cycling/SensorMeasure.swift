/// One thing a BLE sensor measures: what its readings carry and what Home Assistant is told about.
public enum SensorMeasure: String, Sendable, Hashable, CaseIterable, Comparable {
    case heartRate = "heart_rate"
    case power
    case cadence
    case wheelSpeed = "wheel_speed"

    public static func < (a: SensorMeasure, b: SensorMeasure) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }

    /// From CSC Feature (0x2A5C, CSCS 1.0 §3.3): bit 0 wheel revolution data, bit 1 crank revolution data.
    /// Fewer than two bytes (a broken peer) says nothing: both are assumed, and readings decide.
    public static func fromCSCFeature(_ value: [UInt8]) -> Set<SensorMeasure> {
        guard value.count >= 2 else { return [.cadence, .wheelSpeed] }
        var measures: Set<SensorMeasure> = []
        if value[0] & 0x01 != 0 { measures.insert(.wheelSpeed) }
        if value[0] & 0x02 != 0 { measures.insert(.cadence) }
        return measures
    }

    /// From Cycling Power Feature (0x2A65, CPS 1.1 §3.1): power always; bit 2 wheel revolution data, bit 3
    /// crank revolution data.
    public static func fromCyclingPowerFeature(_ value: [UInt8]) -> Set<SensorMeasure> {
        guard value.count >= 4 else { return [.power] }
        var measures: Set<SensorMeasure> = [.power]
        if value[0] & 0x04 != 0 { measures.insert(.wheelSpeed) }
        if value[0] & 0x08 != 0 { measures.insert(.cadence) }
        return measures
    }

    /// Sensor Location (0x2A5D) as a name; the codes of the GATT Specification Supplement.
    public static func sensorLocationName(_ code: UInt8) -> String {
        let names = ["other", "top_of_shoe", "in_shoe", "hip", "front_wheel", "left_crank", "right_crank", "left_pedal",
                     "right_pedal", "front_hub", "rear_dropout", "chainstay", "rear_wheel", "rear_hub", "chest", "spider",
                     "chain_ring"]
        return Int(code) < names.count ? names[Int(code)] : "unknown"
    }
}
