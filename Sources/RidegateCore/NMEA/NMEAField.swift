/// Parsers for NMEA field formats. Each returns nil for an empty or malformed field: NMEA leaves a field
/// empty when the receiver has no value, and a malformed one must not become a value.
enum NMEAField {
    /// A decimal number such as `123.45` or `-3.2`, without the rounding of a round trip through String.
    static func decimal(_ field: ArraySlice<UInt8>) -> Double? {
        guard !field.isEmpty else { return nil }
        var index = field.startIndex
        var negative = false
        if field[index] == UInt8(ascii: "-") || field[index] == UInt8(ascii: "+") {
            negative = field[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var fractionDigits = 0
        var sawDigit = false
        var sawPoint = false
        var significant = 0
        while index < field.endIndex {
            let byte = field[index]
            if byte == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                sawDigit = true
                if sawPoint && fractionDigits == maximumFractionDigits {
                    // Below 1e-18: finer than any receiver resolves. Zeros after the point are not significant
                    // digits, so without this bound a long run of them would outgrow the table of powers.
                } else if significant < 18 {
                    mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                    if mantissa > 0 { significant += 1 }
                    if sawPoint { fractionDigits += 1 }
                } else if !sawPoint {
                    return nil // absurdly long integer part
                }
            } else {
                return nil
            }
            index += 1
        }
        guard sawDigit else { return nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    private static let maximumFractionDigits = 18
    private static let powersOfTen: [Double] = (0...maximumFractionDigits).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    static func integer(_ field: ArraySlice<UInt8>) -> Int? {
        guard !field.isEmpty, field.count <= 9 else { return nil }
        var value = 0
        for byte in field {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` with its hemisphere field, to signed degrees.
    static func coordinate(_ field: ArraySlice<UInt8>, hemisphere: ArraySlice<UInt8>, maxDegrees: Double) -> Double? {
        guard let raw = decimal(field), raw >= 0, let h = hemisphere.first else { return nil }
        let degrees = (raw / 100).rounded(.down)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        let value = degrees + minutes / 60
        guard value <= maxDegrees else { return nil }
        switch h {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): return value
        case UInt8(ascii: "S"), UInt8(ascii: "W"): return -value
        default: return nil
        }
    }

    static func latitude(_ field: ArraySlice<UInt8>, _ hemisphere: ArraySlice<UInt8>) -> Double? {
        coordinate(field, hemisphere: hemisphere, maxDegrees: 90)
    }

    static func longitude(_ field: ArraySlice<UInt8>, _ hemisphere: ArraySlice<UInt8>) -> Double? {
        coordinate(field, hemisphere: hemisphere, maxDegrees: 180)
    }

    /// `hhmmss` or `hhmmss.sss` to seconds of the day.
    static func timeOfDay(_ field: ArraySlice<UInt8>) -> Double? {
        guard field.count >= 6 else { return nil }
        let s = field.startIndex
        guard let hours = integer(field[s..<s + 2]), let minutes = integer(field[s + 2..<s + 4]),
              let seconds = decimal(field[(s + 4)...]),
              hours < 24, minutes < 60, seconds < 61 else { return nil }
        return Double(hours * 3600 + minutes * 60) + seconds
    }

    /// RMC's `ddmmyy`. Two-digit years are 1980–2079 (GPS began in 1980); week-rollover dates are
    /// judged later, by whoever knows the context.
    static func dayMonthYear(_ field: ArraySlice<UInt8>) -> CivilDate? {
        guard field.count == 6 else { return nil }
        let s = field.startIndex
        guard let day = integer(field[s..<s + 2]), let month = integer(field[s + 2..<s + 4]),
              let yy = integer(field[s + 4..<s + 6]) else { return nil }
        return CivilDate(validatingYear: yy < 80 ? 2000 + yy : 1900 + yy, month: month, day: day)
    }

    static func character(_ field: ArraySlice<UInt8>) -> Character? {
        guard let byte = field.first else { return nil }
        return Character(Unicode.Scalar(byte))
    }
}
