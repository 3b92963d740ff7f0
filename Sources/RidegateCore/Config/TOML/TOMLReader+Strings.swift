/// TOML's four kinds of string: basic (with escapes), literal, and their multi-line forms.
extension TOMLReader {
    mutating func basicString() throws(TOMLError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard let b = peek else { throw error("the string is not closed: expected '\"' before the end of the file") }
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("the string is not closed on its line: expected '\"' (use \"\"\"…\"\"\" for text over several lines)")
            case 0..<0x09, 0x0A..<0x20, 0x7F:
                throw error("\(found) in a string: write it as an escape (\\u00\(hex(b)))")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let start = index
        index += 1
        guard let e = peek else { throw error("the string ends in a lone backslash") }
        index += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = e == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let h = peek, let digit = TOMLNumber.digitValue(h) else {
                    throw error("\\\(e == UInt8(ascii: "u") ? "u" : "U") needs \(count) hex digits", at: start)
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("\\\(e == UInt8(ascii: "u") ? "u" : "U") escape is not a Unicode scalar value (a surrogate, or beyond U+10FFFF)", at: start)
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw error("unknown escape \\\(String(UnicodeScalar(e))) (TOML's are \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)", at: start)
        }
    }

    mutating func literalString() throws(TOMLError) -> String {
        index += 1
        let start = index
        while true {
            guard let b = peek else { throw error("the string is not closed: expected \"'\" before the end of the file") }
            switch b {
            case UInt8(ascii: "'"):
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return text
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("the string is not closed on its line: expected \"'\"")
            case 0..<0x09, 0x0A..<0x20, 0x7F:
                throw error("\(found) in a literal string")
            default:
                index += 1
            }
        }
    }

    /// `"""…"""` and `'''…'''`: a line end right after the opening is dropped; up to two quotes may end the
    /// content right before the closing three. Only the basic form has escapes, and a backslash at a line's end
    /// that joins the next non-blank text.
    mutating func multilineString(delimiter quote: UInt8) throws(TOMLError) -> String {
        let basic = quote == UInt8(ascii: "\"")
        index += 3
        try dropFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let b = peek else {
                throw error("the multi-line string is not closed: expected \(basic ? "'\"\"\"'" : "\"'''\"") before the end of the file")
            }
            switch b {
            case quote:
                if peek(1) == quote, peek(2) == quote {
                    var quotes = 3
                    while quotes < 5, peek(quotes) == quote { quotes += 1 }
                    out.append(contentsOf: Array(repeating: quote, count: quotes - 3))
                    index += quotes
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(b)
                index += 1
            case UInt8(ascii: "\\") where basic:
                // A line-ending backslash: whitespace up to the line end, then every blank and line end after.
                var j = index + 1
                while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
                if j < bytes.count, bytes[j] == UInt8(ascii: "\n") || (bytes[j] == UInt8(ascii: "\r") && j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: "\n")) {
                    index = j
                    while let c = peek {
                        if c == 0x20 || c == 0x09 {
                            index += 1
                        } else if c == UInt8(ascii: "\n") {
                            newline()
                        } else if c == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
                            index += 1
                        } else {
                            break
                        }
                    }
                } else {
                    try escape(into: &out)
                }
            case UInt8(ascii: "\n"):
                out.append(b)
                newline()
            case UInt8(ascii: "\r"):
                guard peek(1) == UInt8(ascii: "\n") else { throw error("a carriage return without a line feed in a string") }
                out.append(b)
                index += 1
            case 0..<0x09, 0x0B..<0x20, 0x7F:
                throw error(basic ? "\(found) in a string: write it as an escape (\\u00\(hex(b)))" : "\(found) in a literal string")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    mutating func dropFirstNewline() throws(TOMLError) {
        if peek == UInt8(ascii: "\n") {
            newline()
        } else if peek == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
            index += 1
            newline()
        }
    }
}
