import ArgumentParser
import Glibc
import RidegateCore
import RidegateLinux

struct NMEACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea",
        abstract: "Decode an NMEA capture from your receiver, sentence by sentence.",
        discussion: """
            For every checksum-valid sentence that carries fix data (RMC, GGA, GLL, GNS, VTG) prints what it \
            says: position, altitude, speed, track, and the time once a date is known (from RMC or ZDA, or \
            --date). A summary of what became of every line (bad checksums, unknown sentences, overlong lines) \
            goes to stderr. Capture from a receiver with: cat /dev/ttyACM0 > ride.nmea
            """)

    @Argument(help: ArgumentHelp("The capture to read, or - for standard input.", valueName: "file"))
    var file: String = "-"

    @Flag(help: "Print one JSON object per sentence (keys: line, sentence, valid, time, lat, lon, alt, speed, track, mode, sats, hdop).")
    var json = false

    @Option(help: ArgumentHelp("The UTC date to assume before the first RMC or ZDA, as YYYY-MM-DD.", valueName: "date"))
    var date: String?

    func validate() throws {
        if let date, CivilDate(iso: date) == nil {
            throw ValidationError("The value '\(date)' is invalid for '--date'. Use a date such as 2026-06-21.")
        }
    }

    func run() throws {
        let fd: FileDescriptor
        if file == "-" {
            fd = FileDescriptor(rawValue: 0)
        } else {
            do {
                fd = try FileDescriptor.open(file, O_RDONLY | O_CLOEXEC)
            } catch {
                writeError("\(file): \(error)")
                throw ExitCode(ExitStatus.unavailable)
            }
        }
        var reporter = NMEAReporter(assumedDate: date.flatMap(CivilDate.init(iso:)))
        var splitter = LineSplitter(maximumLength: 4096)
        var lineNumber = 0
        var output = ""
        output.reserveCapacity(1 << 16)
        if !json {
            output += "  line sentence valid time                      latitude      longitude     alt m    speed m/s track°  mode sats hdop\n"
        }
        let handle: (ArraySlice<UInt8>) -> Void = { line in
            lineNumber += 1
            guard let r = reporter.feed(line: line, number: lineNumber) else { return }
            if json {
                output += r.json
                output += "\n"
            } else {
                output += Self.tableRow(r)
            }
            if output.utf8.count > 60_000 { Self.flush(&output) }
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in (try? fd.read(into: raw)) ?? 0 }
            if n == 0 { break }
            splitter.append(buffer[0..<n], line: handle)
        }
        splitter.flush(line: handle)
        Self.flush(&output)
        var stats = reporter.statistics
        stats.overlong += splitter.overlongLines
        try? FileDescriptor(rawValue: 2).writeAll(Array(("summary: " + stats.summary + "\n").utf8))
        for text in reporter.texts { try? FileDescriptor(rawValue: 2).writeAll(Array(("receiver says: " + text + "\n").utf8)) }
    }

    static func flush(_ output: inout String) {
        try? FileDescriptor(rawValue: 1).writeAll(Array(output.utf8))
        output.removeAll(keepingCapacity: true)
    }

    static func tableRow(_ r: NMEAReportLine) -> String {
        func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, width - s.count))
            return left ? s + fill : fill + s
        }
        func number(_ v: Double?, _ decimals: Int) -> String {
            v.map { JSONObjectWriter.number($0, decimals: decimals) } ?? "-"
        }
        return pad(String(r.line), 6) + " " + pad(r.sentence, 8, left: true) + " " + pad(r.valid ? "yes" : "no", 5, left: true) + " "
            + pad(r.time?.iso8601 ?? "-", 25, left: true) + " " + pad(number(r.latitude, 7), 13) + " " + pad(number(r.longitude, 7), 13) + " "
            + pad(number(r.altitude, 1), 8) + " " + pad(number(r.speed, 2), 12) + " " + pad(number(r.track, 1), 6) + " "
            + pad(r.mode.name, 5) + " " + pad(r.satellites.map(String.init) ?? "-", 4) + " " + pad(number(r.hdop, 1), 4) + "\n"
    }
}
