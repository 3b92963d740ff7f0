/// One field of a decoded cycling measurement, named as in the fixtures and `ridegate csc|power decode`.
public struct CyclingField: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case integer(Int)
        case number(Double, decimals: Int)
        case text(String)
        case flag(Bool)
    }

    public var key: String
    public var value: Value

    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    /// The value as JSON writes it (numbers rounded to their decimals).
    public var formatted: String {
        switch value {
        case .integer(let v): String(v)
        case .number(let v, let decimals): JSONObjectWriter.number(v, decimals: decimals)
        case .text(let v): v
        case .flag(let v): v ? "true" : "false"
        }
    }

    /// One JSON object of these fields.
    public static func json(_ fields: [CyclingField]) -> String {
        var json = JSONObjectWriter()
        for field in fields {
            switch field.value {
            case .integer(let v): json.add(field.key, v)
            case .number(let v, let decimals): json.add(field.key, v, decimals: decimals)
            case .text(let v): json.add(field.key, v)
            case .flag(let v): json.add(field.key, v)
            }
        }
        return json.finish()
    }
}

/// The fields of each measurement: a field whose flag is clear is absent.
extension CyclingSpeedCadenceMeasurement {
    public var fields: [CyclingField] { RevolutionData.fields(wheel: wheel, crank: crank) }
}

extension CyclingPowerMeasurement {
    public var fields: [CyclingField] {
        var f = [CyclingField("power_w", .integer(powerWatts))]
        if let balance = pedalPowerBalancePercent {
            f.append(CyclingField("pedal_power_balance_pct", .number(balance, decimals: 1)))
            f.append(CyclingField("pedal_power_balance_reference", .text((pedalPowerBalanceReference ?? .unknown).rawValue)))
        }
        if let torque = accumulatedTorqueNewtonMetres {
            f.append(CyclingField("accumulated_torque_nm", .number(torque, decimals: 5)))
            f.append(CyclingField("accumulated_torque_source", .text((accumulatedTorqueSource ?? .wheel).rawValue)))
        }
        f += RevolutionData.fields(wheel: wheel, crank: crank)
        let optional: [(String, CyclingField.Value?)] = [
            ("max_force_n", maximumForceNewtons.map { .integer($0) }), ("min_force_n", minimumForceNewtons.map { .integer($0) }),
            ("max_torque_nm", maximumTorqueNewtonMetres.map { .number($0, decimals: 5) }),
            ("min_torque_nm", minimumTorqueNewtonMetres.map { .number($0, decimals: 5) }),
            ("max_angle_deg", maximumAngleDegrees.map { .integer($0) }), ("min_angle_deg", minimumAngleDegrees.map { .integer($0) }),
            ("top_dead_spot_deg", topDeadSpotDegrees.map { .integer($0) }), ("bottom_dead_spot_deg", bottomDeadSpotDegrees.map { .integer($0) }),
            ("accumulated_energy_kj", accumulatedEnergyKilojoules.map { .integer($0) }),
        ]
        for (key, value) in optional { if let value { f.append(CyclingField(key, value)) } }
        f.append(CyclingField("offset_compensation", .flag(offsetCompensation)))
        return f
    }
}

extension RevolutionData {
    static func fields(wheel: RevolutionData?, crank: RevolutionData?) -> [CyclingField] {
        var f: [CyclingField] = []
        if let wheel {
            f.append(CyclingField("wheel_revolutions", .integer(Int(wheel.revolutions))))
            f.append(CyclingField("wheel_event_time_s", .number(wheel.eventTimeSeconds, decimals: 6)))
        }
        if let crank {
            f.append(CyclingField("crank_revolutions", .integer(Int(crank.revolutions))))
            f.append(CyclingField("crank_event_time_s", .number(crank.eventTimeSeconds, decimals: 6)))
        }
        return f
    }
}
