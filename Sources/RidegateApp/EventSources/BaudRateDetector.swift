import RidegateCore
import RidegateLinux

/// Finds a receiver's line rate by listening at each common rate for checksum-valid NMEA: at the wrong
/// rate the bytes are noise and no checksum holds.
public struct BaudRateDetector: Sendable {
    /// The usual rates first (`SerialBaud.probeOrder`).
    public static let candidates = SerialBaud.probeOrder

    public let devicePath: String
    /// How long to listen at each rate; a receiver talks at least once a second.
    public let listenSeconds: Double

    /// Reads each try and times its listening.
    public let loop: EventLoop

    public init(devicePath: String, loop: EventLoop, listenSeconds: Double = 1.5) {
        self.devicePath = devicePath
        self.loop = loop
        self.listenSeconds = listenSeconds
    }

    /// The first rate at which two checksum-valid sentences arrive, or nil.
    public func detect() async throws(SerialPortError) -> Int? {
        for rate in Self.candidates {
            if Task.isCancelled { return nil }
            let port = try SerialPort.open(path: devicePath, baud: rate)
            if await validSentences(on: port) >= 2 { return rate }
        }
        return nil
    }

    private func validSentences(on port: SerialPort) async -> Int {
        let stream = ReadableChunks.stream(port.descriptor, label: devicePath, on: loop)
        let listen = listenSeconds
        // The deadline's cancellation ends the stream, which closes the port.
        return await withDeadline(seconds: listen, on: loop) {
            var splitter = LineSplitter(maximumLength: NMEAFraming.maximumLength + 8)
            var valid = 0
            do {
                for try await chunk in stream {
                    splitter.append(chunk) { line in
                        if case .success(let frame) = NMEAFraming.frame(line, requireChecksum: true), frame.hadChecksum { valid += 1 }
                    }
                    if valid >= 2 { return valid }
                }
            } catch {}
            return valid
        }.value(or: 0)
    }
}
