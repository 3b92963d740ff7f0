/// TOML's integers (decimal, 0x, 0o, 0b; underscores only between digits; no leading zeros; 64-bit) and
/// floats (fraction and/or exponent, inf, nan), from the bare text of a value.
enum TOMLNumber {
    /// The number `text` writes, nil when it is not shaped like a number at all; an error when it is one
    /// written wrongly (a leading zero, a misplaced underscore, out of range).
    static func parse(_ text: [UInt8], at position: TOMLPosition) throws(TOMLError) -> TOMLNode.Value? {
        let shown = String(decoding: text, as: UTF8.self)
        var body = text[...]
        var negative = false
        if let sign = body.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        switch String(decoding: body, as: UTF8.self) {
        case "inf": return .float(negative ? -.infinity : .infinity)
        case "nan": return .float(.nan)
        default: break
        }
        guard let first = body.first, isDigit(first) else { return nil }
        // 0x, 0o, 0b: unsigned, no sign allowed.
        if body.count > 2, first == UInt8(ascii: "0"), let radix = radix(body[body.startIndex + 1]) {
            guard text.count == body.count else { throw TOMLError("\(shown): a hexadecimal, octal or binary integer takes no sign", at: position) }
            return try radixInteger(body.dropFirst(2), radix: radix, shown: shown, at: position)
        }
        let isFloat = body.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        guard body.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "_") || (isFloat && ($0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e")
            || $0 == UInt8(ascii: "E") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-"))) }) else { return nil }
        if !isFloat { return try decimalInteger(body, negative: negative, shown: shown, at: position) }
        return try float(text, body: body, shown: shown, at: position)
    }

    /// The digits after 0x, 0o or 0b.
    static func radixInteger(_ digits: ArraySlice<UInt8>, radix: UInt8, shown: String,
                             at position: TOMLPosition) throws(TOMLError) -> TOMLNode.Value? {
        guard try underscoresValid(digits, shown: shown, at: position) else { return nil }
        var value: Int64 = 0
        for d in digits where d != UInt8(ascii: "_") {
            guard let v = digitValue(d), v < radix else {
                throw TOMLError("\(shown) is not a base-\(radix) integer", at: position)
            }
            let (times, o1) = value.multipliedReportingOverflow(by: Int64(radix))
            let (sum, o2) = times.addingReportingOverflow(Int64(v))
            guard !o1, !o2 else { throw TOMLError("\(shown) does not fit in 64 bits", at: position) }
            value = sum
        }
        return .integer(value)
    }

    /// A decimal integer's digits (its sign already taken off).
    static func decimalInteger(
        _ body: ArraySlice<UInt8>, negative: Bool, shown: String, at position: TOMLPosition
    ) throws(TOMLError) -> TOMLNode.Value? {
        guard try underscoresValid(body, shown: shown, at: position) else { return nil }
        if body.count > 1, body.first == UInt8(ascii: "0") {
            throw TOMLError("\(shown): an integer has no leading zeros", at: position)
        }
        var value: Int64 = 0
        for d in body where d != UInt8(ascii: "_") {
            let digit = Int64(d - UInt8(ascii: "0"))
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !o1, !o2 else { throw TOMLError("\(shown) does not fit in 64 bits (−9223372036854775808 to 9223372036854775807)", at: position) }
            value = sum
        }
        return .integer(value)
    }

    /// A float: integer part [. fraction] [e exponent], each part digits with single underscores between.
    static func float(_ text: [UInt8], body: ArraySlice<UInt8>, shown: String, at position: TOMLPosition) throws(TOMLError) -> TOMLNode.Value {
        var parts = body
        var exponent: ArraySlice<UInt8>?
        if let e = parts.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            exponent = parts[(e + 1)...]
            parts = parts[..<e]
        }
        var fraction: ArraySlice<UInt8>?
        if let dot = parts.firstIndex(of: UInt8(ascii: ".")) {
            fraction = parts[(dot + 1)...]
            parts = parts[..<dot]
        }
        func invalid() -> TOMLError { TOMLError("\(shown) is not a valid float (e.g. 3.14, -0.01, 5e+22, 6.626e-34)", at: position) }
        guard !parts.isEmpty, parts.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "_") }), try underscoresValid(parts, shown: shown, at: position)
        else { throw invalid() }
        if parts.count > 1, parts.first == UInt8(ascii: "0") { throw TOMLError("\(shown): a float's integer part has no leading zeros", at: position) }
        if let fraction {
            guard !fraction.isEmpty, fraction.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "_") }),
                  try underscoresValid(fraction, shown: shown, at: position) else { throw invalid() }
        }
        if var exponent {
            if let sign = exponent.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { exponent = exponent.dropFirst() }
            guard !exponent.isEmpty, exponent.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "_") }),
                  try underscoresValid(exponent, shown: shown, at: position) else { throw invalid() }
        }
        let plain = String(decoding: text.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        guard let value = Double(plain) else { throw invalid() }
        return .float(value)
    }

    /// Underscores only between two digits. False when the text has none of the shape of a number.
    static func underscoresValid(_ digits: ArraySlice<UInt8>, shown: String, at position: TOMLPosition) throws(TOMLError) -> Bool {
        guard let first = digits.first, let last = digits.last else { return false }
        if first == UInt8(ascii: "_") || last == UInt8(ascii: "_") {
            throw TOMLError("\(shown): an underscore must sit between two digits", at: position)
        }
        var previous: UInt8 = 0
        for d in digits {
            if d == UInt8(ascii: "_"), previous == UInt8(ascii: "_") {
                throw TOMLError("\(shown): an underscore must sit between two digits", at: position)
            }
            previous = d
        }
        return true
    }

    static func radix(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "x"): 16
        case UInt8(ascii: "o"): 8
        case UInt8(ascii: "b"): 2
        default: nil
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }

    static func digitValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
