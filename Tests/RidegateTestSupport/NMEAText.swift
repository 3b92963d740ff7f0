/// Builds NMEA lines with correct checksums, so tests state sentences by their content.
public enum NMEAText {
    /// `"GPGGA,…"` → `"$GPGGA,…*hh"`.
    public static func sentence(_ body: String) -> String {
        var sum: UInt8 = 0
        for byte in body.utf8 { sum ^= byte }
        let digits = Array("0123456789ABCDEF")
        return "$" + body + "*" + String(digits[Int(sum >> 4)]) + String(digits[Int(sum & 0xF)])
    }
}
