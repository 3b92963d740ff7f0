/// A BLE sensor kind in one place, as `NMEADecoder.table` is for sentences: its service and measurement, the
/// decoder that turns a notification into an event, its topics, its Home Assistant device, the file that
/// remembers one, what doctor says of it, and what a simulated one serves. A sensor's `SensorRef` carries its
/// profile, so every part of the gateway reads the kind from there: a kind is added by one profile and its
/// decoder (`SensorProfileTests` adds one). The built-in kinds are `builtIn`; the config, the ride log and
/// `ridegate scan` know those by name.
///
/// Kinds the core has a model of (heart rate, power, speed/cadence) decode to their own events; any other
/// decodes to `SourceEvent.sensorReading`, named values the core publishes on `<family>/<id>/<kind>` and
/// announces to Home Assistant as `readings` says.
public struct SensorProfile: Sendable, Hashable, CustomStringConvertible {
    /// The kind's name in the config (`kind = "power"`), the ride log, `ridegate scan` and the reading topic.
    public let rawValue: String
    /// The service a sensor of this kind advertises, and the measurement its session subscribes to.
    public let service: BluetoothUUID
    public let measurement: BluetoothUUID
    /// The measurement as the logs name it ("Cycling Power Measurement (0x2A63)").
    public let measurementName: String
    /// For a person: what a sensor of this kind gives ("heart rate"), and doctor's name for a few ("power meters").
    public let measures: String
    public let plural: String
    /// How to wake one that doctor does not hear.
    public let wakeHint: String
    /// Which kind a device advertising several is for (lower first): a power meter that also advertises CSC is
    /// a power meter.
    public let precedence: Int
    /// Worn (a strap) or on the bike: its topics, its reconnect counter, its location field, whether it has a wheel.
    public let family: SensorFamily
    /// The topic family, `strap` or `sensor` (straps kept theirs from earlier releases); also the log label.
    public var topicFamily: String { family.rawValue }
    /// The LED's zones this kind measures (the LED follows a power meter while one is connected).
    public let zones: ZoneSource?
    /// Home Assistant's device name before the sensor's id ("Power meter").
    public let deviceName: String
    /// The file in the state directory that remembers the last one connected.
    public let memoryFile: String
    /// FIT's ANT+ device type for the ride files (speed/cadence refines it by what the sensor measures).
    public let antplusDeviceType: UInt8
    /// The type instead, for a sensor that measures one of these and none of the others (speed alone, cadence alone).
    public let antplusDeviceTypeMeasuringOnly: [SensorMeasure: UInt8]
    /// Readings the core has no model of: their JSON keys and how Home Assistant shows them.
    public let readings: [Reading]
    /// Readable characteristics a simulated sensor of this kind serves beside its measurement (feature, location).
    public let simulatedCharacteristics: [SimulatedCharacteristic]
    /// The measurement notification's decoder: the event it makes, or the kind's "undecodable" event.
    public let decode: @Sendable (SensorRef, [UInt8], ReceiveTime) -> SourceEvent

    /// One value of a `sensorReading`, as published and as Home Assistant shows it.
    public struct Reading: Sendable, Equatable {
        public var key: String
        public var name: String
        public var unit: String
        public var deviceClass: String?
        public var precision: Int

        public init(key: String, name: String, unit: String, deviceClass: String? = nil, precision: Int = 1) {
            self.key = key
            self.name = name
            self.unit = unit
            self.deviceClass = deviceClass
            self.precision = precision
        }
    }

    public struct SimulatedCharacteristic: Sendable {
        public var uuid: BluetoothUUID
        public var value: [UInt8]

        public init(_ uuid: BluetoothUUID, _ value: [UInt8]) {
            self.uuid = uuid
            self.value = value
        }
    }

    public init(rawValue: String, service: BluetoothUUID, measurement: BluetoothUUID, measurementName: String, measures: String,
                plural: String, wakeHint: String, precedence: Int = 10, family: SensorFamily = .sensor,
                zones: ZoneSource? = nil, deviceName: String, memoryFile: String, antplusDeviceType: UInt8 = 0,
        antplusDeviceTypeMeasuringOnly: [SensorMeasure: UInt8] = [:], readings: [Reading] = [],
        simulatedCharacteristics: [SimulatedCharacteristic] = [],
                decode: @escaping @Sendable (SensorRef, [UInt8], ReceiveTime) -> SourceEvent) {
        self.rawValue = rawValue
        self.service = service
        self.measurement = measurement
        self.measurementName = measurementName
        self.measures = measures
        self.plural = plural
        self.wakeHint = wakeHint
        self.precedence = precedence
        self.family = family
        self.zones = zones
        self.deviceName = deviceName
        self.memoryFile = memoryFile
        self.antplusDeviceType = antplusDeviceType
        self.antplusDeviceTypeMeasuringOnly = antplusDeviceTypeMeasuringOnly
        self.readings = readings
        self.simulatedCharacteristics = simulatedCharacteristics
        self.decode = decode
    }

    /// The built-in kinds, in the order `ridegate scan` lists them.
    public static let builtIn: [SensorProfile] = [.heartRate, .speedCadence, .power]

    /// A built-in kind by its name.
    public static func named(_ name: String) -> SensorProfile? { builtIn.first { $0.rawValue == name } }

    public static func == (a: SensorProfile, b: SensorProfile) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }
}

/// Where a sensor is: worn by the rider, or on the bike. The raw value is the topic family.
public enum SensorFamily: String, Sendable {
    /// A heart-rate strap: `strap/<id>` topics, a body location, no wheel, looked for while heart rate is enabled.
    case strap
    /// On the bike: `sensor/<id>` topics, a mount location and a wheel size.
    case sensor
}

extension AdvertisingData {
    /// The built-in sensor kinds this device advertises, in a fixed order (a power meter may also advertise CSC).
    public var sensorKinds: [SensorProfile] { sensorKinds(among: SensorProfile.builtIn) }

    public func sensorKinds(among kinds: [SensorProfile]) -> [SensorProfile] { kinds.filter { serviceUUIDs.contains($0.service) } }
}
