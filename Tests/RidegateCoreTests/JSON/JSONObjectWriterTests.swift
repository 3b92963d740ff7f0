import RidegateCore
import Testing

@Suite struct JSONObjectWriterTests {
    @Test("Numbers print with at most the asked decimals and no binary noise")
    func numbers() {
        var w = JSONObjectWriter()
        w.add("a", 0.1 + 0.2, decimals: 3)
        w.add("b", -105.27050251, decimals: 7)
        w.add("c", 2.0, decimals: 2)
        w.add("d", -0.004, decimals: 2)
        w.add("e", Double.nan, decimals: 1)
        #expect(w.finish() == #"{"a":0.3,"b":-105.2705025,"c":2,"d":0,"e":null}"#)
        // Zeros inside the fraction stay, trailing ones go.
        let cases: [(Double, Int, String)] = [
            (0.05, 2, "0.05"), (-1.0203, 4, "-1.0203"), (3.14, 4, "3.14"), (0.0001, 4, "0.0001"), (10.5, 0, "11"),
            (-38.908478333, 9, "-38.908478333"), (100.0, 3, "100"), (0.1, 1, "0.1"),
        ]
        for (value, decimals, text) in cases {
            #expect(JSONObjectWriter.number(value, decimals: decimals) == text, "\(value) with \(decimals) decimals")
        }
    }

    @Test("Strings are escaped; optionals become null; arrays")
    func stringsAndArrays() {
        var w = JSONObjectWriter()
        w.add("s", "a \"quoted\"\\ line\n\u{1}")
        w.add("n", nil as Int?)
        w.add("rr", [781.25, 782.2], decimals: 1)
        w.add("z", [1, 2])
        #expect(w.finish() == #"{"s":"a \"quoted\"\\ line\n\u0001","n":null,"rr":[781.3,782.2],"z":[1,2]}"#)
        // Quotes and backslashes alone (no control character) are escaped too: a strap's or a ride's name.
        var name = JSONObjectWriter()
        name.add(#"k"ey\"#, #"Polar "H10" \ 1"#)
        #expect(name.finish() == #"{"k\"ey\\":"Polar \"H10\" \\ 1"}"#)
    }

    @Test("Any script passes through as UTF-8; every control character is escaped; integers to their ends")
    func textAndIntegers() {
        var w = JSONObjectWriter()
        w.add("name", "Morgenfahrt nach Zürich — 北京 🚴")
        w.add("c", "\u{0}\u{1F}\t\r\u{7F}")
        w.add("min", Int.min)
        w.add("max", Int.max)
        w.add("zero", 0)
        w.add("list", [-7, 0, 42])
        #expect(w.finish() == #"{"name":"Morgenfahrt nach Zürich — 北京 🚴","c":"\u0000\u001f\t\r\#u{7F}","min":-9223372036854775808,"max":9223372036854775807,"zero":0,"list":[-7,0,42]}"#)
        #expect(JSONObjectWriter.number(-12.5, decimals: 0) == "-13")
        #expect(JSONObjectWriter.number(1e300, decimals: 2) == "1e+300")
    }

    @Test("A finished object can be continued: members are added inside it, with or without members before")
    func extending() {
        var w = JSONObjectWriter(extending: #"{"bpm":72}"#)
        w?.add("replayed", true)
        #expect(w?.finish() == #"{"bpm":72,"replayed":true}"#)
        var empty = JSONObjectWriter(extending: "{ }\n")
        empty?.add("n", 1)
        #expect(empty?.finish() == #"{ "n":1}"#)
        #expect(JSONObjectWriter(extending: "[1]") == nil)
        #expect(JSONObjectWriter(extending: "online") == nil)
        #expect(JSONObjectWriter(extending: "") == nil)
    }
}
