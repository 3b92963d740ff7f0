import RidegateApp
import RidegateCore
import RidegateDemo
import RidegateLinux

/// Every parser that takes bytes from outside, as a function of those bytes: what libFuzzer drives
/// (`scripts/fuzz`) and what the regression tests replay. A target must never trap, whatever the bytes; where
/// a decoder has an encoder, decoding what it encodes must give the same value back (a broken round trip is
/// reported as a crash too).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// NMEA lines through framing, the sentence decoders and the fix assembler.
    case nmea
    /// Heart Rate Measurement (0x2A37).
    case heartRate = "heart_rate"
    /// CSC Measurement (0x2A5B).
    case csc
    /// Cycling Power Measurement (0x2A63).
    case power
    /// One ATT PDU.
    case attPDU = "att_pdu"
    /// The whole sensor session (MTU, discovery, subscription, reads, notifications) against a peer whose
    /// every answer is fuzzed.
    case attClient = "att_client"
    /// Management-interface events.
    case management
    /// Advertising and scan-response data.
    case advertising
    /// The config file: size, NUL and depth checks, TOML, validation.
    case config
    /// A FIT activity (`ridegate demo --ride FILE.fit` reads a head unit's file): definitions, records, the
    /// activity's messages, and the replay made of them — every value the replay's sensors send must decode as
    /// the measurement it is.
    case fit
    /// What intervals.icu and Strava answer (a status, rate-limit headers, a JSON body), what a rider pastes back
    /// from Strava's authorization, and the token file: every answer comes to a verdict the uploader acts on.
    case trainingSite = "training_site"

    public func run(_ data: [UInt8]) {
        switch self {
        case .nmea: Self.nmea(data)
        case .heartRate: Self.heartRate(data)
        case .csc: Self.csc(data)
        case .power: Self.power(data)
        case .attPDU: Self.attPDU(data)
        case .attClient: FuzzedATTPeer.session(script: data)
        case .management: Self.management(data)
        case .advertising: _ = AdvertisingData(parsing: data).sensorKinds
        case .config: Self.config(data)
        case .fit: Self.fit(data)
        case .trainingSite: Self.trainingSite(data)
        }
    }

    static func fit(_ data: [UInt8]) {
        _ = RecordedRideRehearsal.run(data) { characteristic, value in
            let decoded: Bool
            switch characteristic {
            case .heartRateMeasurement: decoded = (try? HeartRateMeasurement(decoding: value)) != nil
            case .cyclingPowerMeasurement: decoded = (try? CyclingPowerMeasurement(decoding: value)) != nil
            case .cscMeasurement: decoded = (try? CyclingSpeedCadenceMeasurement(decoding: value)) != nil
            default: decoded = false
            }
            guard decoded else { fatalError("fit: the replay sent \(characteristic) \(value.map { String($0, radix: 16) }) that does not decode") }
        }
    }

    static func nmea(_ data: [UInt8]) {
        var splitter = LineSplitter()
        var assembler = FixAssembler()
        let decoder = NMEADecoder()
        splitter.append(data) { line in
            if case .decoded(let sentence) = decoder.decode(line: line) { _ = assembler.consume(sentence) }
        }
        _ = assembler.flush()
    }

    static func heartRate(_ data: [UInt8]) {
        guard let m = try? HeartRateMeasurement(decoding: data) else { return }
        roundTrip(m, (try? HeartRateMeasurement(decoding: m.encoded)), "0x2A37", data)
    }

    static func csc(_ data: [UInt8]) {
        guard let m = try? CyclingSpeedCadenceMeasurement(decoding: data) else { return }
        roundTrip(m, (try? CyclingSpeedCadenceMeasurement(decoding: m.encoded)), "0x2A5B", data)
    }

    static func power(_ data: [UInt8]) {
        guard let m = try? CyclingPowerMeasurement(decoding: data) else { return }
        roundTrip(m, (try? CyclingPowerMeasurement(decoding: m.encoded)), "0x2A63", data)
    }

    static func attPDU(_ data: [UInt8]) {
        guard let pdu = try? ATTPDU(decoding: data) else { return }
        roundTrip(pdu, (try? ATTPDU(decoding: pdu.encoded)), "ATT PDU", data)
    }

    static func management(_ data: [UInt8]) {
        var index: UInt16 = 0
        _ = ManagementEvent(packet: data, index: &index)
    }

    /// ridegate's own TOML parser and the config validation behind it. A document the parser accepts must
    /// parse the same way again (the parser keeps no state between documents).
    static func config(_ data: [UInt8]) {
        _ = try? ConfigDocument.parse(data, file: "fuzz.toml")
        if let first = try? TOMLParser.parse(bytes: data), let second = try? TOMLParser.parse(bytes: data) {
            guard first.position == second.position else { fatalError("config: the same document parsed differently") }
        }
    }

    /// The first two bytes choose the status (100–599) and whether rate-limit headers come with it; the rest is
    /// the body. A token read from an answer must read back the same from the file ridegate writes of it.
    static func trainingSite(_ data: [UInt8]) {
        guard data.count >= 2 else { return }
        let status = 100 + (Int(data[0]) << 8 | Int(data[1])) % 500
        let body = String(decoding: data.dropFirst(2), as: UTF8.self)
        let headers = data[1] & 1 == 0 ? [:] : ["x-ratelimit-limit": String(body.prefix(12)), "x-ratelimit-usage": String(body.suffix(12)),
                                               "retry-after": String(body.prefix(6))]
        let response = HTTPResponse(status: status, headers: headers, body: body)
        let now = Timestamp(secondsSince1970: 1_780_000_000)
        _ = IntervalsICUProtocol.interpret(response)
        _ = StravaProtocol.interpret(response, now: now)
        _ = StravaProtocol.interpretToken(response, now: now)
        let wait = StravaProtocol.rateLimitWait(response, now: now)
        guard wait > 0, wait <= 86_401 else { fatalError("training_site: a rate-limit wait of \(wait) s") }
        _ = StravaProtocol.code(fromPasted: body)
        if let token = StravaToken(answer: body, now: now) { roundTrip(token, StravaToken(answer: token.fileText, now: now), "token", data) }
    }

    private static func roundTrip<T: Equatable>(_ value: T, _ again: T?, _ what: String, _ input: [UInt8]) {
        guard again == value else {
            fatalError("\(what) round trip broke for \(input.map { String($0, radix: 16) }): \(value) became \(String(describing: again))")
        }
    }
}
