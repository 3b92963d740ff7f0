import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux

/// Plays a recorded NMEA capture into the controller side of a pty, one epoch per burst, paced by the
/// capture's own times (divided by `speed`): to the serial reader on the device side it is a receiver.
/// The capture is read as it plays, a few kilobytes at a time: holding a whole ride (and its epochs) in
/// memory was a megabyte of the demo's resident set (docs/performance.md). With `startAt`, every sentence's
/// time and date are moved so that the capture's first dated epoch falls at that moment (`NMEATimeShift`).
struct NMEAReplayer: Sendable {
    let path: String
    let speed: Double
    let startAt: Timestamp?
    let logger: Logger
    /// Waits out a reader that is not draining.
    let loop: EventLoop
    /// The ride's second 0, shared with the simulated sensors: their ticks and the receiver's epochs fall due
    /// together, one wakeup for all of them.
    let start: RideSchedule

    /// The receiver's name on the ride's schedule.
    static let part = "receiver"

    /// The simulated receiver's side of the pty, made non-blocking (a write never holds up the loop); false, said,
    /// when it cannot be.
    static func prepare(_ pty: PseudoTerminal, logger: Logger) -> Bool {
        do {
            try pty.controller.setNonBlocking()
            return true
        } catch {
            logger.error("cannot make the simulated receiver non-blocking", [("demo.error", "\(error)")])
            return false
        }
    }

    /// Returns when the capture has been played, it cannot be read, or the task is cancelled.
    func play(into pty: PseudoTerminal) async {
        guard NMEAReplayer.prepare(pty, logger: logger) else { return }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
        } catch {
            logger.error("cannot read the demo ride", [("demo.ride", path), ("demo.error", "\(error)")])
            return
        }
        defer { file.close() }
        var splitter = LineSplitter(maximumLength: 4096)
        var grouper = NMEAEpochGrouper(shift: startAt.flatMap { target in
            Self.firstDatedTime(path).map { NMEATimeShift(from: $0, to: target) }
        })
        var ready: [NMEAEpochGrouper.Epoch] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        start.joins(Self.part)
        defer { start.leaves(Self.part) }
        var pace = Pace(origin: await start.origin())
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) -> Int in try file.read(into: buffer) }
            }
            let count: Int
            switch result {
            case .success(let n): count = n
            case .failure(let error):
                logger.error("cannot read the demo ride", [("demo.ride", path), ("demo.error", "\(error)")])
                return
            }
            if count == 0 { break }
            splitter.append(chunk[0..<count]) { line in
                if let finished = grouper.add(line: line) { ready.append(finished) }
            }
            for epoch in ready {
                guard await play(epoch, pace: &pace, into: pty) else { return }
            }
            ready.removeAll(keepingCapacity: true)
        }
        if let last = grouper.finish() {
            guard await play(last, pace: &pace, into: pty) else { return }
        }
        logger.info("the demo ride has ended")
    }

    /// The time of the capture's first sentence with a date (RMC, ZDA), from its first megabyte.
    static func firstDatedTime(_ path: String) -> Timestamp? {
        var splitter = LineSplitter(maximumLength: 4096)
        let decoder = NMEADecoder()
        var found: Timestamp?
        var read = 0
        // A file that cannot be read has no time to move; the replay itself says why it cannot read it.
        try? TextFile.readChunks(path) { chunk in
            read += chunk.count
            splitter.append(chunk) { line in
                guard found == nil, case .decoded(let sentence) = decoder.decode(line: line) else { return }
                switch sentence.body {
                case .rmc(let rmc): if let date = rmc.date, let tod = rmc.timeOfDay { found = Timestamp(date: date, secondsOfDay: tod) }
                case .zda(let zda): if let date = zda.date, let tod = zda.timeOfDay { found = Timestamp(date: date, secondsOfDay: tod) }
                default: break
                }
            }
            return found == nil && read < 1 << 20
        }
        return found
    }

    /// Where the replay is: the ride's second 0, the capture's time of its last epoch, and the capture's seconds
    /// since its first.
    private struct Pace {
        var origin: Double
        var previousTime: Double?
        var elapsed = 0.0
    }

    /// Waits until the epoch's second of the ride (its capture time from the first epoch, scaled by `speed`, on
    /// the ride's schedule: `RideSchedule.waits`), then writes it. A gap lasts as long as the capture says:
    /// shortened, its next epochs would read as a receiver whose clock jumped ahead of the gateway's, which GPS
    /// time rejects for 30 s (a 10 Hz capture's minute without fixes lost 30 s of riding). Only a gap over an
    /// hour (captures joined together) is cut to one.
    private func play(_ epoch: NMEAEpochGrouper.Epoch, pace: inout Pace, into pty: PseudoTerminal) async -> Bool {
        if Task.isCancelled { return false }
        if let t = epoch.timeOfDay, let p = pace.previousTime {
            var dt = t - p
            if dt < 0 { dt += 86_400 }
            pace.elapsed += min(dt, 3600)
        }
        await start.waits(Self.part, for: pace.elapsed, speed: speed, origin: pace.origin)
        pace.previousTime = epoch.timeOfDay ?? pace.previousTime
        return await Self.write(epoch.bytes, to: pty.controller, loop: loop, logger: logger)
    }

    /// Non-blocking writes; while the reader is not draining (not open yet, or stopping) it waits in short,
    /// cancellable steps rather than parking a thread in write(2).
    static func write(_ bytes: [UInt8], to fd: FileDescriptor, loop: EventLoop, logger: Logger) async -> Bool {
        var offset = 0
        while offset < bytes.count {
            if Task.isCancelled { return false }
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(Errno) -> Int in try fd.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch result {
            case .success(let n):
                offset += n
            case .failure(let error) where error == .wouldBlock:
                await loop.sleep(seconds: 0.02)
            case .failure(let error):
                logger.warning("replay stopped: the serial reader side is gone", [("demo.error", "\(error)")])
                return false
            }
        }
        return true
    }
}

/// Groups a capture's lines into epochs as they arrive: lines sharing a time of day are one epoch, untimed
/// lines join the current one. Each line leaves with CR LF, as a receiver sends it.
struct NMEAEpochGrouper {
    struct Epoch: Equatable {
        var timeOfDay: Double?
        var bytes: [UInt8]
    }

    private let decoder = NMEADecoder()
    private let shift: NMEATimeShift?
    private var current: Epoch?

    init(shift: NMEATimeShift? = nil) {
        self.shift = shift
    }

    /// Adds a line (without its terminator); returns the epoch it closed, if it starts a new one.
    mutating func add(line: ArraySlice<UInt8>) -> Epoch? {
        var bytes = shift.map { $0.apply(to: line) } ?? Array(line)
        var tod: Double?
        if case .decoded(let sentence) = decoder.decode(line: bytes[...]) { tod = sentence.timeOfDay }
        if bytes.last != 0x0D { bytes.append(0x0D) }
        bytes.append(0x0A)
        if let epochTime = current.map(\.timeOfDay), sameEpoch(epochTime, tod) {
            current?.bytes += bytes
            return nil
        }
        let finished = current
        current = Epoch(timeOfDay: tod, bytes: bytes)
        return finished
    }

    /// The last epoch, once the capture has ended.
    mutating func finish() -> Epoch? {
        defer { current = nil }
        return current
    }

    private func sameEpoch(_ epochTime: Double?, _ lineTime: Double?) -> Bool {
        guard let lineTime else { return true }
        guard let epochTime else { return false }
        return abs(epochTime - lineTime) < 0.0005
    }
}
