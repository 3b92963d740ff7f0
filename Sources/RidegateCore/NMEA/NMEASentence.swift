/// A decoded sentence that carries fix or time data, with the talker that sent it.
public struct NMEASentence: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        case rmc(RMC)
        case gga(GGA)
        case gll(GLL)
        case gns(GNS)
        case vtg(VTG)
        case gsa(GSA)
        case zda(ZDA)
        case gsv(GSV)
        case txt(TXT)
    }

    /// `GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `GQ`, `QZ`…
    public var talker: String
    public var body: Body

    /// `GNRMC`, as the receiver named it.
    public var address: String { talker + type }

    public var type: String {
        switch body {
        case .rmc: "RMC"
        case .gga: "GGA"
        case .gll: "GLL"
        case .gns: "GNS"
        case .vtg: "VTG"
        case .gsa: "GSA"
        case .zda: "ZDA"
        case .gsv: "GSV"
        case .txt: "TXT"
        }
    }

    /// The UTC time of day the sentence reports, if it carries one.
    public var timeOfDay: Double? {
        switch body {
        case .rmc(let s): s.timeOfDay
        case .gga(let s): s.timeOfDay
        case .gll(let s): s.timeOfDay
        case .gns(let s): s.timeOfDay
        case .zda(let s): s.timeOfDay
        case .vtg, .gsa, .gsv, .txt: nil
        }
    }
}

/// What became of one input line. Every line has exactly one outcome, so counts always add up.
public enum NMEALineOutcome: Sendable, Equatable {
    case decoded(NMEASentence)
    /// A known sentence ridegate does not use (GSV, GST, TXT…), or a proprietary `$P…` sentence.
    case ignored(address: String)
    case unknown(address: String)
    /// Fewer fields than the sentence type needs: a truncated line.
    case tooShort(address: String, fields: Int)
    case rejected(NMEAFramingError)
}
