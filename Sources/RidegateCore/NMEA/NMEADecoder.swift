/// Turns lines into sentences through one dispatch table, as gpsd does: the talker is stripped once, then the
/// three-letter type picks a row with its minimum field count and decoder (or none: known, ignored).
public struct NMEADecoder: Sendable {
    struct Row: Sendable {
        let type: (UInt8, UInt8, UInt8)
        /// Fields after the address that the oldest receivers we accept still send.
        let minimumFields: Int
        let decode: (@Sendable (NMEAFrame) -> NMEASentence.Body)?
    }

    static let table: [Row] = [
        row("RMC", 9) { .rmc(.decode($0)) },
        row("GGA", 9) { .gga(.decode($0)) },
        // Garmin 48 and other pre-2.0 receivers send GLL without the time and status fields.
        row("GLL", 4) { .gll(.decode($0)) },
        row("GNS", 9) { .gns(.decode($0)) },
        row("VTG", 4) { .vtg(.decode($0)) },
        row("GSA", 17) { .gsa(.decode($0)) },
        row("ZDA", 4) { .zda(.decode($0)) },
        row("GSV", 3) { .gsv(.decode($0)) },
        row("TXT", 4) { .txt(.decode($0)) },
        row("GST", 1, nil), row("GBS", 1, nil), row("GRS", 1, nil),
        row("HDT", 1, nil), row("DTM", 1, nil), row("VHW", 1, nil), row("ZDG", 1, nil), row("BOD", 1, nil),
        row("BWC", 1, nil), row("RMB", 1, nil), row("RTE", 1, nil), row("XTE", 1, nil), row("WPL", 1, nil),
        row("AAM", 1, nil), row("APB", 1, nil), row("DBT", 1, nil), row("MWV", 1, nil), row("ROT", 1, nil),
        row("THS", 1, nil), row("VLW", 1, nil), row("GBQ", 1, nil), row("GLQ", 1, nil), row("GNQ", 1, nil),
        row("GPQ", 1, nil),
    ]

    private static func row(_ type: StaticString, _ minimumFields: Int,
                            _ decode: (@Sendable (NMEAFrame) -> NMEASentence.Body)?) -> Row {
        let p = type.utf8Start
        return Row(type: (p[0], p[1], p[2]), minimumFields: minimumFields, decode: decode)
    }

    public init() {}

    public func decode(line: [UInt8]) -> NMEALineOutcome {
        decode(line: line[...])
    }

    public func decode(line: ArraySlice<UInt8>) -> NMEALineOutcome {
        switch NMEAFraming.frame(line) {
        case .failure(let error):
            return .rejected(error)
        case .success(let frame):
            return decode(frame: frame)
        }
    }

    public func decode(frame: NMEAFrame) -> NMEALineOutcome {
        let address = frame.field(0)
        // Proprietary sentences ($PGRME, $PSRF…) and AIS (!AIVDM) carry nothing ridegate uses.
        if address.first == UInt8(ascii: "P") || frame.bytes.first == UInt8(ascii: "!") {
            return .ignored(address: frame.address)
        }
        guard address.count == 5 else { return .unknown(address: frame.address) }
        let s = address.startIndex
        let key = (address[s + 2], address[s + 3], address[s + 4])
        guard let row = Self.table.first(where: { $0.type == key }) else { return .unknown(address: frame.address) }
        guard let decode = row.decode else { return .ignored(address: frame.address) }
        let fields = frame.fieldCount - 1
        guard fields >= row.minimumFields else { return .tooShort(address: frame.address, fields: fields) }
        return .decoded(NMEASentence(talker: String(decoding: address.prefix(2), as: UTF8.self), body: decode(frame)))
    }
}
