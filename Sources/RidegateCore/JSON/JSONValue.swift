/// A JSON document, parsed (RFC 8259): what `ridegate watch` reads from the broker. Anything can arrive
/// there, so the parser refuses what is not JSON (with the byte offset) and nests at most 64 deep; it never
/// traps on input.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "not JSON at byte \(offset): \(reason)" }
    }

    public init(parsing text: String) throws(ParseError) {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipSpace()
        self = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.fail("text after the value") }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    public var double: Double? { if case .number(let n) = self { n } else { nil } }
    public var int: Int? { double.flatMap { $0.isFinite && abs($0) < 9e15 ? Int($0) : nil } }
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func fail(_ reason: String) -> ParseError { ParseError(offset: index, reason: reason) }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth < 64 else { throw fail("nested more than 64 deep") }
            guard index < bytes.count else { throw fail("the text ended where a value was expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(ParseError) {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw fail("expected \(word)")
            }
            index += expected.count
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            var members: [String: JSONValue] = [:]
            guard !opensEmpty(closedBy: UInt8(ascii: "}")) else { return .object(members) }
            repeat {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipSpace()
                members[key] = try value(depth: depth + 1)
            } while try continues(closedBy: UInt8(ascii: "}"), container: "object")
            return .object(members)
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            var items: [JSONValue] = []
            guard !opensEmpty(closedBy: UInt8(ascii: "]")) else { return .array(items) }
            repeat {
                skipSpace()
                items.append(try value(depth: depth + 1))
            } while try continues(closedBy: UInt8(ascii: "]"), container: "array")
            return .array(items)
        }

        /// Steps past a container's opening bracket; true when it closes at once (`{}`, `[]`), stepped past too.
        mutating func opensEmpty(closedBy closer: UInt8) -> Bool {
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == closer else { return false }
            index += 1
            return true
        }

        /// After a member or an item: true when a ',' announces another, false past the closing bracket.
        mutating func continues(closedBy closer: UInt8, container: String) throws(ParseError) -> Bool {
            skipSpace()
            guard index < bytes.count else { throw fail("the \(container) is not closed") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                return true
            }
            guard bytes[index] == closer else { throw fail("expected ',' or '\(Character(Unicode.Scalar(closer)))'") }
            index += 1
            return false
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var run = index
            func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flush(index)
                    index += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw fail("a control character in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                flush(index)
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), bytes.count - index >= 6,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("a lone surrogate") }
                    scalars.append(scalar)
                default:
                    throw fail("an unknown escape")
                }
                run = index
            }
            throw fail("the string is not closed")
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard bytes.count - index >= 4 else { throw fail("a short \\u escape") }
            var code: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw fail("not a hex digit")
                }
                code = code << 4 | digit
                index += 1
            }
            return code
        }

        mutating func number() throws(ParseError) -> Double {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits() -> Int {
                let from = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
                return index - from
            }
            let whole = index
            guard digits() > 0 else { throw fail("expected a value") }
            guard bytes[whole] != UInt8(ascii: "0") || index - whole == 1 else { throw fail("a number with a leading zero") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw fail("no digits after the decimal point") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw fail("no digits in the exponent") }
            }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw fail("not a number") }
            return value
        }
    }
}
