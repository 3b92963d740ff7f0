/// Decodes successive values from one sensor, as `ridegate csc decode` and `ridegate power decode` print them:
/// each value's fields, and from the second on the cadence and wheel speed derived from the previous valid
/// value (when its event time advanced). A malformed value is an error of its own and does not break the chain.
public struct CyclingDecodeSequence: Sendable {
    public enum Kind: String, Sendable { case csc, power }

    public enum Line: Sendable, Equatable {
        /// The value's fields, then the derived ones.
        case decoded([CyclingField])
        case failed(CyclingMeasurementError)
    }

    public let kind: Kind
    public let wheelCircumferenceMillimetres: Double
    private var previous: (wheel: RevolutionData?, crank: RevolutionData?)?

    public init(kind: Kind, wheelCircumferenceMillimetres: Double) {
        self.kind = kind
        self.wheelCircumferenceMillimetres = wheelCircumferenceMillimetres
    }

    public mutating func decode(_ bytes: [UInt8]) -> Line {
        var fields: [CyclingField]
        let wheel: RevolutionData?
        let crank: RevolutionData?
        do throws(CyclingMeasurementError) {
            switch kind {
            case .csc:
                let m = try CyclingSpeedCadenceMeasurement(decoding: bytes)
                (fields, wheel, crank) = (m.fields, m.wheel, m.crank)
            case .power:
                let m = try CyclingPowerMeasurement(decoding: bytes)
                (fields, wheel, crank) = (m.fields, m.wheel, m.crank)
            }
        } catch {
            return .failed(error)
        }
        if let previous {
            if let before = previous.crank, let now = crank, let cadence = RevolutionRate.cadenceRPM(from: before, to: now) {
                fields.append(CyclingField("cadence_rpm", .number(cadence, decimals: 6)))
            }
            if let before = previous.wheel, let now = wheel,
               let speed = RevolutionRate.wheelSpeed(from: before, to: now, circumferenceMillimetres: wheelCircumferenceMillimetres) {
                fields.append(CyclingField("wheel_speed_mps", .number(speed, decimals: 6)))
            }
        }
        previous = (wheel, crank)
        return .decoded(fields)
    }
}
