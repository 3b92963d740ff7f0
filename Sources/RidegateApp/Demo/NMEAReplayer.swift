import RidegateCore
import RidegateLinux

/// Plays a recorded NMEA capture into the controller side of a pty, one epoch per burst, paced by the
/// capture's own times (divided by `speed`): to the serial reader on the device side it is a receiver.
struct NMEAReplayer: Sendable {
    let capture: [UInt8]
    let speed: Double
    let logger: Logger

    /// Groups the capture's lines into epochs (lines sharing a time; untimed lines join the current one).
    static func epochs(of capture: [UInt8]) -> [(timeOfDay: Double?, bytes: [UInt8])] {
        var result: [(Double?, [UInt8])] = []
        var splitter = LineSplitter(maximumLength: 4096)
        let decoder = NMEADecoder()
        splitter.append(capture) { line in
            var tod: Double?
            if case .decoded(let sentence) = decoder.decode(line: line) { tod = sentence.timeOfDay }
            var bytes = Array(line)
            if bytes.last != 0x0D { bytes.append(0x0D) }
            bytes.append(0x0A)
            if let t = tod, let current = result.last, let currentTime = current.0, abs(currentTime - t) < 0.0005 {
                result[result.count - 1].1 += bytes
            } else if tod == nil, !result.isEmpty {
                result[result.count - 1].1 += bytes
            } else {
                result.append((tod, bytes))
            }
        }
        return result
    }

    /// Returns when the capture has been played or the task is cancelled.
    func play(into pty: PseudoTerminal) async {
        let epochs = Self.epochs(of: capture)
        do {
            try pty.controller.setNonBlocking()
        } catch {
            logger.error("cannot make the simulated receiver non-blocking", [("demo.error", "\(error)")])
            return
        }
        var previousTime: Double?
        for epoch in epochs {
            if Task.isCancelled { return }
            if let t = epoch.timeOfDay, let p = previousTime {
                var dt = t - p
                if dt < 0 { dt += 86_400 }
                await EventLoop.sleep(seconds: min(dt, 10) / speed)
            }
            previousTime = epoch.timeOfDay ?? previousTime
            guard await write(epoch.bytes, to: pty.controller) else { return }
        }
        logger.info("the demo ride has ended")
    }

    /// Non-blocking writes; while the reader is not draining (not open yet, or stopping) it waits in short,
    /// cancellable steps rather than parking a thread in write(2).
    private func write(_ bytes: [UInt8], to fd: FileDescriptor) async -> Bool {
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
                await EventLoop.sleep(seconds: 0.02)
            case .failure(let error):
                logger.warning("replay stopped: the serial reader side is gone", [("demo.error", "\(error)")])
                return false
            }
        }
        return true
    }
}
