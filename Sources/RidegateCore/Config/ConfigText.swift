/// What a config file's bytes must be before a TOML parser sees them: small (a ridegate config is a few
/// kilobytes; /dev/zero given as the config must not grow to gigabytes), free of NUL bytes (a binary file,
/// or a copy cut short: a parser may stop at the NUL and call the rest valid), and not nested deeper than
/// any real config (a 10,000-level `[a.a.a…]` header crashed the parser's recursion), and with a name in every
/// table header (`[` alone on a line aborted the parser (toml++): found by `scripts/fuzz config`), and without
/// date or time values: no ridegate setting takes one, and toml++ aborted on malformed ones (`1987-07-05 0`,
/// found by the same fuzzer), so they never reach it.
public enum ConfigText {
    public static let maximumBytes = 1 << 20
    /// ridegate's own config nests three levels at most; TOML written by people rarely passes ten.
    public static let maximumDepth = 32

    /// The text of `bytes`, or the first reason it cannot be a config, with its line (and column).
    public static func check(_ bytes: [UInt8], file: String) throws(ConfigError) -> String {
        guard bytes.count <= maximumBytes else {
            throw ConfigError(file: file, line: nil, key: "",
                              problem: "the file is larger than 1 MiB (a ridegate config is a few kilobytes): is --config the right file?")
        }
        if let nul = bytes.firstIndex(of: 0) {
            let (line, column) = position(of: nul, in: bytes)
            throw ConfigError(file: file, line: line, key: "",
                              problem: "a NUL byte at column \(column): the file is binary or was cut short while copying (everything after it would be ignored)")
        }
        var depth = 0
        var lineStart = true
        var header: (dots: Int, open: Bool) = (0, false)
        var awaitingName = false
        var previous: UInt8 = 0
        var headerBrackets = 0
        var recent: [UInt8] = [] // the last bytes of structure, to see a date's `dddd-dd-dd`
        var openers: [UInt8] = [] // the value brackets open, innermost last
        for (byte, line) in structure(of: bytes) {
            recent.append(byte)
            if recent.count > 10 { recent.removeFirst() }
            if byte == UInt8(ascii: ":") || Self.endsLikeDate(recent) {
                throw ConfigError(file: file, line: line, key: "",
                                  problem: "a date or time value: no ridegate setting takes one (quote it if it is text: \"…\")")
            }
            defer { previous = byte }
            // `[[name]]`: the second bracket right after the first; a third, or one after a space, is no name.
            let secondBracket = awaitingName && byte == UInt8(ascii: "[") && previous == UInt8(ascii: "[") && headerBrackets == 1
            if secondBracket { headerBrackets = 2 }
            if awaitingName, byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t"), !secondBracket {
                awaitingName = false
                guard Self.isBareKey(byte) || byte == Self.stringMarker else {
                    throw ConfigError(file: file, line: line, key: "",
                                      problem: "a table header without a name: write it as [section] or [[section]], e.g. [mqtt] or [[sensor]]")
                }
            }
            switch byte {
            case UInt8(ascii: "\n"):
                lineStart = true
                header.open = false
                continue
            case UInt8(ascii: "[") where lineStart && depth == 0:
                header = (0, true) // a table header: its depth is its dotted parts
                awaitingName = true
                headerBrackets = 1
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if !header.open {
                    depth += 1
                    openers.append(byte)
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if header.open {
                    header.open = byte != UInt8(ascii: "]")
                } else {
                    // A `}` closing a `[` (or the reverse) is invalid TOML that toml++ aborted on instead of
                    // refusing (found by fuzzing): say so here.
                    if let opener = openers.popLast(), (opener == UInt8(ascii: "[")) != (byte == UInt8(ascii: "]")) {
                        throw ConfigError(file: file, line: line, key: "",
                                          problem: "a \(byte == UInt8(ascii: "]") ? "]" : "}") closes a \(opener == UInt8(ascii: "[") ? "[" : "{"): arrays are [ … ], inline tables { … }")
                    }
                    depth = max(0, depth - 1)
                }
            case UInt8(ascii: "."):
                if header.open { header.dots += 1 }
            default:
                break
            }
            if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") { lineStart = false }
            if max(depth, header.open ? header.dots + 1 : 0) > maximumDepth {
                throw ConfigError(file: file, line: line, key: "",
                                  problem: "nested more than \(maximumDepth) levels deep (ridegate's settings nest three at most): is --config the right file?")
            }
        }
        if awaitingName {
            // `[` at the very end of the file (or before a comment that runs to it): no name either.
            throw ConfigError(file: file, line: nil, key: "",
                              problem: "a table header without a name at the end of the file: write it as [section] or [[section]], e.g. [mqtt]")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `dddd-dd-dd` at the end of `bytes` (outside strings: a TOML local date).
    static func endsLikeDate(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 10 else { return false }
        let tail = bytes.suffix(10)
        return tail.enumerated().allSatisfy { index, b in
            index == 4 || index == 7 ? b == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
        }
    }

    /// Stands for a whole string (basic, literal, multi-line) in `structure(of:)`.
    static let stringMarker = UInt8(ascii: "\"")

    static func isBareKey(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// The bytes that give a TOML document its shape, with their line: each string (basic, literal, and both
    /// multi-line forms) as one `stringMarker`, comments left out, line ends kept.
    static func structure(of bytes: [UInt8]) -> [(byte: UInt8, line: Int)] {
        var out: [(UInt8, Int)] = []
        var line = 1
        var i = 0
        func at(_ j: Int) -> UInt8 { j < bytes.count ? bytes[j] : 0 }
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                out.append((stringMarker, line))
                let triple = at(i + 1) == b && at(i + 2) == b
                let basic = b == UInt8(ascii: "\"")
                i += triple ? 3 : 1
                // Skip to the closing quote(s): escapes only in basic strings, line ends only in triple ones.
                while i < bytes.count {
                    let c = bytes[i]
                    if basic, c == UInt8(ascii: "\\") { i += 2; continue }
                    if c == UInt8(ascii: "\n") {
                        line += 1
                        if !triple { break }
                    }
                    if c == b, !triple || (at(i + 1) == b && at(i + 2) == b) {
                        i += triple ? 3 : 1
                        break
                    }
                    i += 1
                }
                continue
            }
            if b == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                continue
            }
            out.append((b, line))
            if b == UInt8(ascii: "\n") { line += 1 }
            i += 1
        }
        return out
    }

    static func position(of index: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for (i, b) in bytes[..<index].enumerated() where b == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return (line, index - lineStart + 1)
    }
}
