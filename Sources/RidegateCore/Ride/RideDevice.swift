/// A sensor that rode along, as a ride's files name it (FIT device_info): what it is, who made it, which one it
/// is, how its battery was. From its Device Information service and the sensor session.
public struct RideDevice: Sendable, Equatable {
    /// The sensor's id in the gateway (its address, or the demo's name).
    public var sensorID: String
    public var kind: SensorProfile
    public var measures: Set<SensorMeasure>
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var serialNumber: String?
    public var batteryPercent: Int?

    public init(sensorID: String, kind: SensorProfile, measures: Set<SensorMeasure> = [], name: String? = nil, manufacturer: String? = nil,
                model: String? = nil, serialNumber: String? = nil, batteryPercent: Int? = nil) {
        self.sensorID = sensorID
        self.kind = kind
        self.measures = measures
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.batteryPercent = batteryPercent
    }

    /// The ANT+ device type FIT names the kind by: heart rate 120, bike power 11, speed and cadence 121, speed
    /// alone 123, cadence alone 122.
    public var antplusDeviceType: UInt8 {
        let only = kind.antplusDeviceTypeMeasuringOnly.filter { measures.contains($0.key) }
        guard only.count == 1, let refined = only.first else { return kind.antplusDeviceType }
        return refined.value
    }

    /// The product's name: manufacturer and model where the sensor says them, else its advertised name.
    public var productName: String? {
        let parts = [manufacturer, model].compactMap { $0?.isEmpty == false ? $0 : nil }
        return parts.isEmpty ? name : parts.joined(separator: " ")
    }

    /// FIT's serial number is a 32-bit number: a decimal serial that fits is itself, any other a stable hash of it
    /// (FNV-1a), never 0 (FIT's "none").
    public var fitSerialNumber: UInt32? {
        guard let serial = serialNumber?.trimmingSpaces, !serial.isEmpty else { return nil }
        if serial.allSatisfy(\.isASCIIDigit), let number = UInt32(serial), number > 0 { return number }
        var hash: UInt32 = 2_166_136_261
        for byte in serial.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash == 0 ? 1 : hash
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
