import RidegateCore

/// Turns one 0x2A37 notification value into an event: every strap path (BLE, the demo's simulated
/// strap) goes through the same decoder.
public enum HeartRateNotification {
    public static func event(strap: String, value: [UInt8], at time: ReceiveTime) -> SourceEvent {
        do {
            return .heartRate(strap: strap, try HeartRateMeasurement(decoding: value), at: time)
        } catch {
            return .heartRateUndecodable(strap: strap, error, at: time)
        }
    }
}
