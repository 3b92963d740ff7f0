/// The kinds ridegate reads out of the box: heart-rate straps, speed/cadence sensors and power meters.
extension SensorProfile {
    public static let heartRate = SensorProfile(
        rawValue: "heart_rate", service: .heartRateService, measurement: .heartRateMeasurement,
        measurementName: "Heart Rate Measurement (0x2A37)", measures: "heart rate", plural: "heart-rate straps",
        wakeHint: "wear the strap (or wet its electrodes) to wake it", precedence: 2, family: .strap,
        zones: .heartRate, deviceName: "Heart-rate strap", memoryFile: "strap", antplusDeviceType: 120,
        simulatedCharacteristics: [SimulatedCharacteristic(.bodySensorLocation, [1])], // chest
        decode: { sensor, value, time in
            do throws(HeartRateMeasurementError) {
                return .sensorMeasurement(sensor, .heartRate(try HeartRateMeasurement(decoding: value)), at: time)
            } catch {
                return .sensorUndecodable(sensor, error.description, at: time)
            }
        })

    public static let speedCadence = SensorProfile(
        rawValue: "speed_cadence", service: .cyclingSpeedCadenceService, measurement: .cscMeasurement,
        measurementName: "CSC Measurement (0x2A5B)", measures: "speed/cadence", plural: "speed/cadence sensors",
        wakeHint: "spin the wheel or the cranks to wake the sensor", precedence: 1,
        deviceName: "Speed/cadence sensor", memoryFile: "speed_sensor", antplusDeviceType: 121,
        antplusDeviceTypeMeasuringOnly: [.wheelSpeed: 123, .cadence: 122],
        simulatedCharacteristics: [SimulatedCharacteristic(.cscFeature, [0x03, 0x00]),   // wheel and crank data
                                   SimulatedCharacteristic(.sensorLocation, [6])],       // right crank
        decode: { sensor, value, time in
            do throws(CyclingMeasurementError) {
                return .sensorMeasurement(sensor, .speedCadence(try CyclingSpeedCadenceMeasurement(decoding: value)), at: time)
            } catch {
                return .sensorUndecodable(sensor, error.description, at: time)
            }
        })

    public static let power = SensorProfile(
        rawValue: "power", service: .cyclingPowerService, measurement: .cyclingPowerMeasurement,
        measurementName: "Cycling Power Measurement (0x2A63)", measures: "power", plural: "power meters",
        wakeHint: "turn the cranks a few times to wake the power meter", precedence: 0,
        zones: .power, deviceName: "Power meter", memoryFile: "power_meter", antplusDeviceType: 11,
        simulatedCharacteristics: [SimulatedCharacteristic(.cyclingPowerFeature, [0x0C, 0x00, 0x00, 0x00]), // wheel and crank data
                                   SimulatedCharacteristic(.sensorLocation, [5])],                        // left crank
        decode: { sensor, value, time in
            do throws(CyclingMeasurementError) {
                return .sensorMeasurement(sensor, .power(try CyclingPowerMeasurement(decoding: value)), at: time)
            } catch {
                return .sensorUndecodable(sensor, error.description, at: time)
            }
        })
}
