import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// Power zones on a real power stream (every ride in the reference corpus with power and an FTP): time in each
/// zone as training software counts it from the 1 s powers, and a shown zone that follows every sustained change.
@Suite(.referenceCorpus) struct RealPowerZoneTests {
    struct Stream: Sendable, CustomTestStringConvertible {
        var name: String
        var ftp: Int
        /// Every record's offset and power (nil where the record has none).
        var records: [(offset: Double, watts: Int?)]
        var testDescription: String { name }
        var powers: [(offset: Double, watts: Int)] { records.compactMap { r in r.watts.map { (r.offset, $0) } } }
    }

    static let streams: [Stream] = Fixtures.names(in: "rides", ext: "fit").compactMap { name in
        guard let file = try? FITActivityFile(Fixtures.bytes("rides/\(name).fit")), let ftp = file.sessions.first?.ftp,
              let start = file.records.first?.time else { return nil }
        let records = file.records.map { ($0.time - start, $0.power) }
        return records.filter { $0.1 != nil }.count > 600 ? Stream(name: name, ftp: ftp, records: records) : nil
    }

    static let meter = SensorRef(kind: .power, id: "pm")

    /// The power stream through the core as a power meter's readings, one a second, with the file's FTP. On a thread
    /// of its own: hours of readings are seconds of work in a debug build, which on one of the suite's two cooperative
    /// threads would hold up every async test beside it.
    static func ride(_ stream: Stream, dwell: Double = GatewayConfig.Zones().powerDwellSeconds,
        margin: Int = GatewayConfig.Zones().powerMarginWatts
    ) async throws -> (core: GatewayCore, shown: [(offset: Double, average: Double?, zone: Int?)]) {
        try await OffThePool.run { rideHere(stream, dwell: dwell, margin: margin) }
    }

    private static func rideHere(_ stream: Stream, dwell: Double, margin: Int
    ) -> (core: GatewayCore, shown: [(offset: Double, average: Double?, zone: Int?)]) {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]), zoneDwellSeconds: 3)
        settings.powerZones = .power(ftp: stream.ftp)
        settings.powerZoneDwellSeconds = dwell
        settings.powerZoneMarginWatts = margin
        settings.rideSummaryInterval = 1e9
        var core = GatewayCore(settings: settings)
        var shown: [(Double, Double?, Int?)] = []
        for (offset, watts) in stream.powers {
            let at = ReceiveTime(monotonicSeconds: 1000 + offset, system: Timestamp(secondsSince1970: 1_782_057_600 + offset))
            for effect in core.handle(.sensorMeasurement(meter, .power(CyclingPowerMeasurement(powerWatts: watts)), at: at)) {
                guard case .publish(let p) = effect, p.topic == "sensor/pm/power", let json = try? JSONValue(parsing: p.payload) else { continue }
                shown.append((offset, json["power_3s_w"]?.double, json["zone"]?.int))
            }
        }
        return (core, shown)
    }

    @Test("Time in each power zone: what the 1 s powers give, to the second (the ride's files); live, to the second but for pauses", arguments: streams)
    func timeInZone(stream: Stream) async throws {
        let zones = ZoneBoundaries.power(ftp: stream.ftp)
        // The seconds each power record stands for, in the zone of its power: one each where the head unit recorded
        // once a second (the count of its 1 s powers), the seconds since the record before where it skipped some.
        var counts = Array(repeating: 0.0, count: zones.count + 1)
        var previous: Double?
        for (offset, watts) in stream.records {
            defer { previous = offset }
            guard let watts else { continue }
            let gap = previous.map { offset - $0 } ?? 1
            counts[zones.zone(for: watts)] += gap <= RideStatistics.maximumGap ? gap : 1
        }
        let oneASecond = zip(stream.records, stream.records.dropFirst()).allSatisfy { $1.offset - $0.offset == 1 }
        if oneASecond {
            var plain = Array(repeating: 0.0, count: zones.count + 1)
            for (_, watts) in stream.powers { plain[zones.zone(for: watts)] += 1 }
            #expect(plain == counts)
        }
        Fixtures.report("power streams", cases: Self.streams.count)
        // The ride's files: each 1 s record in the zone of its power, exactly.
        let points = stream.records.map { RidePoint(time: Timestamp(secondsSince1970: 1_782_057_600 + $0.offset), moving: true, power: $0.watts) }
        let statistics = try #require(RideStatistics.of(points, context: .init(powerZones: zones)))
        #expect(statistics.powerZoneSeconds == counts, "\(stream.name): \(statistics.powerZoneSeconds ?? []) vs \(counts)")
        // Live on MQTT: the time from each reading to the next (the last has had none yet), a pause in the readings
        // counting at most ZoneTime.maximumGap.
        let (core, _) = try await Self.ride(stream)
        let live = try #require(core.rideTotals.secondsInPowerZone)
        let difference = zip(live, counts).map { abs($0 - $1) }.reduce(0, +)
        let pauses = zip(stream.powers, stream.powers.dropFirst()).filter { $1.offset - $0.offset > 1 }.count
        #expect(difference <= 1 + Double(pauses) * ZoneTime.maximumGap, "\(stream.name): live \(live), records \(counts), \(pauses) pauses")
    }

    @Test("The shown zone follows every sustained change of the 3 s power within the dwell and a second", arguments: streams)
    func followsSustainedChanges(stream: Stream) async throws {
        let zones = ZoneBoundaries.power(ftp: stream.ftp)
        let margin = GatewayConfig.Zones().powerMarginWatts, dwell = GatewayConfig.Zones().powerDwellSeconds
        let (_, shown) = try await Self.ride(stream)
        /// The zone a 3 s average is in clear of every boundary by the margin, or nil when it is near one.
        func clear(_ watts: Double) -> Int? {
            let value = Int(watts.rounded())
            let z = zones.zone(for: value)
            let low = z == 0 ? Int.min : zones.lowerBounds[z - 1] + margin
            let high = z < zones.count ? zones.lowerBounds[z] - margin : Int.max
            return value >= low && value < high ? z : nil
        }
        var sustained = 0
        var missed: [String] = []
        var index = 0
        while index < shown.count {
            // A stretch of dwell + 1 s or more in which every 3 s average is clearly in the same zone.
            guard let average = shown[index].average, let z = clear(average) else { index += 1; continue }
            var end = index
            while end + 1 < shown.count, let next = shown[end + 1].average, clear(next) == z { end += 1 }
            let start = shown[index].offset
            if shown[end].offset - start >= dwell + 1 {
                sustained += 1
                let by = shown.last { $0.offset <= start + dwell + 1 }
                if by?.zone != z { missed.append("at \(Int(start)) s: zone \(z) for \(Int(shown[end].offset - start)) s, shown \(by?.zone ?? -1) after dwell + 1 s") }
            }
            index = end + 1
        }
        #expect(sustained > 20, "\(stream.name): only \(sustained) sustained stretches to judge")
        #expect(missed.isEmpty, "\(stream.name): \(missed.count) of \(sustained) sustained changes not followed: \(missed.prefix(5))")
    }

    /// The zone of each reading's 3 s average, without hysteresis.
    static func averageZones(_ shown: [(offset: Double, average: Double?, zone: Int?)], _ zones: ZoneBoundaries) -> [Int?] {
        shown.map { $0.average.flatMap { Int(rounding: $0, within: 0...0xFFFF) }.map(zones.zone(for:)) }
    }

    @Test("A surge shows: the zone follows the 3 s power into a zone within 2 s of its entering it, when it stays there that long", arguments: streams)
    func surgeShowsWithinTwoSeconds(stream: Stream) async throws {
        let zones = ZoneBoundaries.power(ftp: stream.ftp)
        let (_, shown) = try await Self.ride(stream)
        let raw = Self.averageZones(shown, zones)
        let margin = GatewayConfig.Zones().powerMarginWatts
        var late: [String] = []
        var entries = 0
        for index in shown.indices.dropFirst() {
            // The 3 s power enters a zone past the margin (no boundary within it) and stays in it 2 s or more.
            guard let z = raw[index], raw[index - 1] != z, let average = shown[index].average,
                  zones.zone(for: Int(average.rounded()) - margin) == z, zones.zone(for: Int(average.rounded()) + margin) == z else { continue }
            let start = shown[index].offset
            let window = shown.indices[index...].prefix { shown[$0].offset <= start + 2 }
            // Clear of the boundaries by the margin all the while (within it, the hysteresis keeps the zone on purpose).
            let clear = window.allSatisfy {
                shown[$0].average.map { zones.zone(for: Int($0.rounded()) - margin) == z && zones.zone(for: Int($0.rounded()) + margin) == z } == true
            }
            guard let end = window.last, shown[end].offset == start + 2, clear else { continue }
            entries += 1
            if shown[end].zone != z { late.append("at \(Int(start)) s: zone \(z), shown \(window.map { shown[$0].zone ?? -1 })") }
        }
        print("power zone: \(stream.name): \(entries) surges into a zone held 2 s, \(late.count) shown late")
        #expect(entries > 0)
        #expect(late.isEmpty, "\(stream.name): \(late.count) of \(entries) shown more than 2 s late: \(late.prefix(5))")
    }

    @Test("On steady stretches (a minute within ±15 % of its mean power) the zone changes no more often than with a 3 s dwell and a 10 W margin", arguments: streams)
    func steadyStretchesDoNotFlicker(stream: Stream) async throws {
        func changes(dwell: Double, margin: Int = 10) async throws -> (changes: Int, minutes: Double) {
            let (_, shown) = try await Self.ride(stream, dwell: dwell, margin: margin)
            var count = 0, seconds = 0.0, index = 0
            while index + 60 < shown.count {
                let window = shown[index..<(index + 60)].compactMap(\.average)
                let mean = window.reduce(0, +) / Double(max(1, window.count))
                guard window.count == 60, mean > 50, window.allSatisfy({ abs($0 - mean) <= 0.15 * mean }) else { index += 1; continue }
                let zonesShown = shown[index..<(index + 60)].map(\.zone)
                count += zip(zonesShown, zonesShown.dropFirst()).filter { $0 != $1 }.count
                seconds += 60
                index += 60
            }
            return (count, seconds / 60)
        }
        // Before: a 3 s dwell and a 10 W margin. Now: a shorter dwell, the margin widened to hold steady riding.
        let defaults = GatewayConfig.Zones()
        let before = try await changes(dwell: 3, margin: 10)
        let now = try await changes(dwell: defaults.powerDwellSeconds, margin: defaults.powerMarginWatts)
        print("power zone: \(stream.name): steady \(before.minutes) min, \(before.changes) zone changes with a 3 s dwell and 10 W margin, "
              + "\(now.changes) with \(defaults.powerDwellSeconds) s and \(defaults.powerMarginWatts) W")
        #expect(now.changes <= before.changes, "\(stream.name): \(now.changes) zone changes on \(before.minutes) steady minutes, \(before.changes) before")
    }
}
