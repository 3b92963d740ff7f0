import RidegateCore
import Testing

/// Log lines from values ridegate does not choose: a sensor's name, a receiver's text, SQLite's own report.
@Suite struct LogLineFormatTests {
    @Test("Plain values as they are; spaces, quotes, backslashes and control characters quoted and escaped: one value can never make a second line")
    func escaping() {
        let line = LogLineFormat.line(level: .error, label: "rides", message: "the ride log was damaged", metadata: [
            ("plain", "42"), ("spaced", "a b"), ("quoted", #"say "hi""#), ("path", #"C:\x"#),
            ("damage", "*** in database main ***\nPage 28: error\r\tend\u{1}\u{7F}"), ("empty", ""),
        ])
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\t"))
        #expect(line == #"error rides: the ride log was damaged plain=42 spaced="a b" quoted="say \"hi\"" path="C:\\x" "#
            + #"damage="*** in database main ***\nPage 28: error\r\tend\x01\x7f" empty="""#)
    }
}
