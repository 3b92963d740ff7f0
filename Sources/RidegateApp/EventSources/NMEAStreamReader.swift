import RidegateCore
import RidegateLinux

/// NMEA bytes, from a serial port or from gpsd, to fixes: lines, sentences, epochs; `no_data` when valid
/// sentences stop for `dataTimeout` seconds; what became of every line counted.
struct NMEAStreamReader: Sendable {
    let label: String
    let rolloverFloor: CivilDate?
    let dataTimeout: Double
    let clock: SystemClock
    let logger: Logger
    /// Times the data watchdog.
    let loop: EventLoop

    func read(_ chunks: ChunkStream, emit: @escaping @Sendable (SourceEvent) -> Void) async -> NMEAStatistics {
        var splitter = LineSplitter(maximumLength: NMEAFraming.maximumLength + 8)
        let decoder = NMEADecoder()
        var assembler = FixAssembler(notBefore: rolloverFloor)
        var statistics = NMEAStatistics()
        var rolloverLogged = false
        let watchdog = DataWatchdog(seconds: dataTimeout, on: loop) { emit(.gpsState(.noData, at: clock.now())) }
        defer { watchdog.stop() }
        do {
            for try await chunk in chunks {
                let now = clock.now()
                splitter.append(chunk) { line in
                    let outcome = decoder.decode(line: line)
                    statistics.count(outcome)
                    switch outcome {
                    case .decoded(let sentence):
                        watchdog.kick()
                        if case .txt(let text) = sentence.body {
                            logger.info("receiver says", [("gps.text", text.text)])
                        }
                        for fix in assembler.consume(sentence) { emit(.gpsFix(fix, at: now)) }
                        // Said once the receiver keeps doing it: a lone date from before the rollover is a glitch
                        // (the time reference ignores it), not a receiver that needs correcting.
                        if assembler.rolloverCorrections >= 3, !rolloverLogged {
                            rolloverLogged = true
                            logger.warning("receiver reports a date before a GPS week rollover; correcting by 1024 weeks",
                                           [("gps.date", assembler.date?.description ?? "?")])
                        }
                    case .rejected(.empty):
                        break
                    case .rejected(let reason):
                        logger.debug("NMEA line rejected", [("gps.reason", "\(reason)")])
                    default:
                        watchdog.kick() // a valid sentence we do not use still means the link works
                    }
                }
            }
        } catch {
            logger.debug("GPS read ended", [("gps.error", "\(error)")])
        }
        // The input ended (unplugged, the demo's recording over): the epoch it was in the middle of still counts.
        if let last = assembler.flush() { emit(.gpsFix(last, at: clock.now())) }
        statistics.overlong += splitter.overlongLines
        return statistics
    }
}
