/// `[zones]`: heart-rate zones (by model or boundaries) and power zones (from the FTP).
extension GatewayConfig {
    public struct Zones: Sendable, Equatable {
        public enum Model: String, Sendable, CaseIterable {
            case maxHR = "max_hr"
            case reserve = "hrr"
            case lthr
            case lthr5
            case bpm
        }

        public var model = Model.maxHR
        public var maxHeartRate = 190
        public var restingHeartRate = 60
        public var lactateThreshold = 170
        public var percentages: [Double] = [50, 60, 70, 80, 90]
        public var boundaries: [Int] = []
        public var marginBPM = 2
        public var dwellSeconds = 3.0
        /// Functional threshold power (W): with it, power zones (Coggan's seven levels by default).
        public var ftp: Int?
        /// The FTPs accepted (W): a value outside is a typo (or a head unit's file's placeholder).
        public static let ftpRange = 50...2000
        /// Lower bounds of power zones 2… as percentages of FTP (zone 1 starts at 1 W).
        public var powerPercentages: [Double] = [56, 76, 91, 106, 121, 151]
        public var powerMarginWatts = 20
        /// The power zone's dwell: short, as the 3 s average it follows already smooths a pedal stroke, and a head
        /// unit shows a surge's zone at once (a 3 s dwell on top showed a 10 s sprint as it ended). Half a second:
        /// with a meter's one reading a second, the second reading past the margin moves it, however they jitter.
        public var powerDwellSeconds = 0.5

        public init() {}

        public var powerZones: ZoneBoundaries? { ftp.map { ZoneBoundaries.power(ftp: $0, percentages: powerPercentages) } }

        public var zones: ZoneBoundaries {
            switch model {
            case .maxHR: .percentOfMax(maxHeartRate, percentages: percentages)
            case .reserve: .percentOfReserve(max: maxHeartRate, resting: restingHeartRate, percentages: percentages)
            case .lthr: .frielSeven(lactateThreshold: lactateThreshold)
            case .lthr5: .thresholdFive(lactateThreshold: lactateThreshold)
            case .bpm: ZoneBoundaries(lowerBounds: boundaries)
            }
        }
    }

    static func zones(_ table: ConfigTableReader) throws(ConfigError) -> Zones {
        var z = table
        var zones = Zones()
        let modelName = try z.choice("model", default: zones.model.rawValue, allowed: Zones.Model.allCases.map(\.rawValue))
        zones.model = Zones.Model(rawValue: modelName) ?? .maxHR
        zones.restingHeartRate = try z.integer("resting_hr", default: zones.restingHeartRate, range: 30...120)
        zones.lactateThreshold = try z.integer("lthr", default: zones.lactateThreshold, range: 100...220)
        if let node = z.node("boundaries_bpm") {
            guard case .array(let items) = node.value else {
                throw z.error("boundaries_bpm", node, "\(node.rendered) must be an array of heart rates, e.g. [100, 120, 140, 155, 170]")
            }
            zones.boundaries = items.compactMap { if case .integer(let i) = $0.value { i } else { nil } }
            guard zones.boundaries.count == items.count, (1...10).contains(items.count),
                  zones.boundaries.allSatisfy({ (30...240).contains($0) }), ZoneBoundaries(lowerBounds: zones.boundaries).isValid else {
                throw z.error("boundaries_bpm", node, "\(node.rendered) must be 1 to 10 strictly increasing whole heart rates from 30 to 240 bpm")
            }
        }
        if zones.model == .bpm, zones.boundaries.isEmpty {
            throw z.error("model", z.table["model"], "\"bpm\" needs zones.boundaries_bpm, the lower bound of each zone, e.g. [100, 120, 140, 155, 170]")
        }
        zones.maxHeartRate = try z.integer("max_hr", default: zones.maxHeartRate, range: 100...230)
        if zones.model == .reserve, zones.restingHeartRate >= zones.maxHeartRate - 20 {
            throw z.error("resting_hr", z.table["resting_hr"], "\(zones.restingHeartRate) leaves no heart-rate reserve below max_hr \(zones.maxHeartRate)")
        }
        zones.percentages = try z.numbers("percentages", default: zones.percentages)
        try Self.increasing(zones.percentages, count: 1...10, within: 30...100, z, "percentages",
                            "1 to 10 strictly increasing percentages of max_hr between 30 and 100, e.g. [50, 60, 70, 80, 90]")
        zones.marginBPM = try z.integer("margin_bpm", default: zones.marginBPM, range: 0...20)
        zones.dwellSeconds = try z.number("dwell_s", default: zones.dwellSeconds, range: 0...60)
        zones.ftp = try z.optionalInteger("ftp", range: Zones.ftpRange)
        zones.powerPercentages = try z.numbers("power_percentages", default: zones.powerPercentages)
        try Self.increasing(zones.powerPercentages, count: 1...9, within: 10...300, z, "power_percentages",
                            "1 to 9 strictly increasing percentages of ftp from 10 to 300 (the lower bounds of zones 2 and up), e.g. [56, 76, 91, 106, 121, 151]")
        zones.powerMarginWatts = try z.integer("power_margin_w", default: zones.powerMarginWatts, range: 0...100)
        zones.powerDwellSeconds = try z.number("power_dwell_s", default: zones.powerDwellSeconds, range: 0...60)
        try z.finish()
        return zones
    }

    /// Zone bounds: `count` of them, strictly increasing, each `within`; else an error saying they `must be` so.
    static func increasing(_ values: [Double], count: ClosedRange<Int>, within: ClosedRange<Double>, _ table: ConfigTableReader,
                           _ key: String, _ mustBe: String) throws(ConfigError) {
        guard count.contains(values.count), zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }),
              values.allSatisfy({ within.contains($0) }) else {
            throw table.error(key, table.table[key], "\(table.table[key]?.rendered ?? "") must be \(mustBe)")
        }
    }
}
