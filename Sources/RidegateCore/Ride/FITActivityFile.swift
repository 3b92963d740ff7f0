/// A recorded ride as a FIT activity says it: its records (one per second, or as the head unit's "smart
/// recording" chose), the devices it lists, its timer events, and the head unit's own totals (session and laps).
/// Units are ridegate's: seconds, metres, degrees, m/s, bpm, rpm, watts. From `FITDecoder`'s messages.
public struct FITActivityFile: Sendable {
    public struct Record: Sendable, Equatable {
        public var time: Timestamp
        public var latitude: Double?
        public var longitude: Double?
        public var altitude: Double?
        public var speed: Double?
        public var distance: Double?
        public var heartRate: Int?
        public var cadence: Int?
        public var power: Int?
    }

    public struct Device: Sendable, Equatable {
        public var index: Int?
        /// The ANT+ device type (heart rate 120, bike power 11, speed/cadence 121, speed 123, cadence 122).
        public var type: Int?
        public var manufacturer: Int?
        public var product: Int?
        public var serialNumber: Int64?
        public var productName: String?
        public var sourceType: Int?
        public var batteryLevel: Int?
        public var softwareVersion: Double?
    }

    /// A session's or a lap's totals as the head unit worked them out.
    public struct Totals: Sendable, Equatable {
        public var start: Timestamp?
        public var elapsedSeconds: Double?
        public var timerSeconds: Double?
        public var distanceMeters: Double?
        public var averageSpeed: Double?
        public var maximumSpeed: Double?
        public var averageHeartRate: Int?
        public var maximumHeartRate: Int?
        public var averageCadence: Int?
        public var averagePower: Int?
        public var maximumPower: Int?
        public var normalizedPower: Int?
        public var workJoules: Int64?
        public var ascentMeters: Int?
        public var descentMeters: Int?
        public var calories: Int?
        public var ftp: Int?
    }

    public struct Event: Sendable, Equatable {
        public var time: Timestamp
        public var event: Int
        public var type: Int
    }

    public var records: [Record] = []
    public var devices: [Device] = []
    public var events: [Event] = []
    public var sessions: [Totals] = []
    public var laps: [Totals] = []
    /// The rider's FTP in the zones target message (functional_threshold_power), where the head unit wrote one.
    public var zonesFTP: Int?

    public init(_ bytes: [UInt8]) throws(FITDecodingError) {
        self.init(messages: try FITDecoder.decode(bytes))
    }

    public init(messages: [FITDecoder.Message]) {
        for message in messages {
            switch message.global {
            case 20: if let record = Self.record(message) { records.append(record) }
            case 23: devices.append(Self.device(message))
            case 21:
                if let time = Self.time(message.integer(253)), let event = message.integer(0), let type = message.integer(1) {
                    events.append(Event(time: time, event: Int(event), type: Int(type)))
                }
            case 18: sessions.append(Self.totals(message, offsets: Self.sessionFields))
            case 19: laps.append(Self.totals(message, offsets: Self.lapFields))
            case 7: zonesFTP = message.integer(3).map { Int(clamping: $0) } ?? zonesFTP
            default: break
            }
        }
        records.sort { $0.time < $1.time }
    }

    /// Seconds since the FIT epoch (1989-12-31T00:00:00Z) as a time.
    static func time(_ value: Int64?) -> Timestamp? {
        value.map { Timestamp(secondsSince1970: Double($0) + FITActivity.epochOffset) }
    }

    static func degrees(_ semicircles: Int64?) -> Double? {
        semicircles.map { Double($0) * 180 / 2_147_483_648 }
    }

    static func scaled(_ value: Int64?, _ scale: Double, offset: Double = 0) -> Double? {
        value.map { Double($0) / scale - offset }
    }

    static func record(_ m: FITDecoder.Message) -> Record? {
        guard let time = time(m.integer(253)) else { return nil }
        let latitude = degrees(m.integer(0)), longitude = degrees(m.integer(1))
        let validPosition = latitude.map { abs($0) <= 90 } == true && longitude.map { abs($0) <= 180 } == true
        return Record(time: time, latitude: validPosition ? latitude : nil, longitude: validPosition ? longitude : nil,
                      altitude: scaled(m.integer(78), 5, offset: 500) ?? scaled(m.integer(2), 5, offset: 500),
                      speed: scaled(m.integer(73), 1000) ?? scaled(m.integer(6), 1000), distance: scaled(m.integer(5), 100),
                      heartRate: m.integer(3).map { Int($0) }, cadence: m.integer(4).map { Int($0) }, power: m.integer(7).map { Int($0) })
    }

    static func device(_ m: FITDecoder.Message) -> Device {
        func int(_ field: UInt8) -> Int? { m.integer(field).map { Int(clamping: $0) } }
        return Device(index: int(0), type: int(1), manufacturer: int(2), product: int(4), serialNumber: m.integer(3),
                      productName: m.text(27), sourceType: int(25), batteryLevel: int(32), softwareVersion: scaled(m.integer(5), 100))
    }

    /// Field numbers of the totals in a session (18) and a lap (19): they differ from avg_speed on.
    struct TotalsFields {
        var averageSpeed: UInt8, maximumSpeed: UInt8, averageHeartRate: UInt8, maximumHeartRate: UInt8, averageCadence: UInt8
        var averagePower: UInt8, maximumPower: UInt8, ascent: UInt8, descent: UInt8, normalizedPower: UInt8, work: UInt8
        var threshold: UInt8?
    }

    static let sessionFields = TotalsFields(averageSpeed: 14, maximumSpeed: 15, averageHeartRate: 16, maximumHeartRate: 17, averageCadence: 18,
                                            averagePower: 20, maximumPower: 21, ascent: 22, descent: 23, normalizedPower: 34, work: 48, threshold: 45)
    static let lapFields = TotalsFields(averageSpeed: 13, maximumSpeed: 14, averageHeartRate: 15, maximumHeartRate: 16, averageCadence: 17,
                                        averagePower: 19, maximumPower: 20, ascent: 21, descent: 22, normalizedPower: 33, work: 41, threshold: nil)

    static func totals(_ m: FITDecoder.Message, offsets f: TotalsFields) -> Totals {
        func int(_ field: UInt8?) -> Int? { field.flatMap { m.integer($0) }.map { Int(clamping: $0) } }
        return Totals(start: time(m.integer(2)), elapsedSeconds: scaled(m.integer(7), 1000), timerSeconds: scaled(m.integer(8), 1000),
                      distanceMeters: scaled(m.integer(9), 100), averageSpeed: scaled(m.integer(f.averageSpeed), 1000),
                      maximumSpeed: scaled(m.integer(f.maximumSpeed), 1000), averageHeartRate: int(f.averageHeartRate),
                      maximumHeartRate: int(f.maximumHeartRate), averageCadence: int(f.averageCadence), averagePower: int(f.averagePower),
                      maximumPower: int(f.maximumPower), normalizedPower: int(f.normalizedPower), workJoules: m.integer(f.work),
                      ascentMeters: int(f.ascent), descentMeters: int(f.descent), calories: int(11), ftp: int(f.threshold))
    }
}
