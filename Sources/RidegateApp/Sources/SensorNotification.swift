import RidegateCore

/// Turns one measurement notification into an event: every sensor path (BLE, the demo's simulated sensors)
/// goes through the same decoders, chosen by the characteristic that sent it.
public enum SensorNotification {
    public static func event(sensor: SensorRef, kind: BluetoothUUID, value: [UInt8], at time: ReceiveTime) -> SourceEvent {
        switch kind {
        case .cscMeasurement:
            do throws(CyclingMeasurementError) {
                return .cyclingSpeedCadence(sensor, try CyclingSpeedCadenceMeasurement(decoding: value), at: time)
            } catch {
                return .cyclingUndecodable(sensor, error, at: time)
            }
        case .cyclingPowerMeasurement:
            do throws(CyclingMeasurementError) {
                return .cyclingPower(sensor, try CyclingPowerMeasurement(decoding: value), at: time)
            } catch {
                return .cyclingUndecodable(sensor, error, at: time)
            }
        default:
            do {
                return .heartRate(strap: sensor.id, try HeartRateMeasurement(decoding: value), at: time)
            } catch {
                return .heartRateUndecodable(strap: sensor.id, error, at: time)
            }
        }
    }
}
