extension GatewayConfig {
    /// `[rider]`: all three of weight_kg, age and sex, or none (calories from heart rate need each of them).
    static func rider(_ table: ConfigTableReader) throws(ConfigError) -> RiderProfile? {
        var r = table
        let weight = try r.number("weight_kg", default: 0, range: 0...400)
        let age = try r.optionalInteger("age", range: 5...120)
        let sexName = try r.optionalString("sex")
        try r.finish()
        guard weight > 0 || age != nil || sexName != nil else { return nil }
        guard let sexName, let sex = RiderProfile.Sex(rawValue: sexName) else {
            throw r.error("sex", r.table["sex"], sexName.map { "\"\($0)\" is not one of \"female\", \"male\"" }
                ?? "set rider.sex (\"female\" or \"male\") with weight_kg and age: calories from heart rate need all three")
        }
        guard weight >= 20 else {
            throw r.error("weight_kg", r.table["weight_kg"], "set rider.weight_kg (20 to 400) with age and sex: calories from heart rate need all three")
        }
        guard let age else {
            throw r.error("age", r.table["age"], "set rider.age (5 to 120) with weight_kg and sex: calories from heart rate need all three")
        }
        return RiderProfile(weightKilograms: weight, age: age, sex: sex)
    }
}
