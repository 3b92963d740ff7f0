import RidegateCore
import RidegateLinux

/// Finds a receiver's line rate by listening at each common rate for checksum-valid NMEA: at the wrong
/// rate the bytes are noise and no checksum holds.
public struct BaudRateDetector: Sendable {
    /// The usual rates first: 9600 (most modules), 4800 (old NMEA), 38400 and 115200 (u-blox, fast GNSS).
    public static let candidates = [9600, 4800, 38400, 115_200, 57600, 19200, 230_400, 460_800, 921_600]

    public let devicePath: String
    /// How long to listen at each rate; a receiver talks at least once a second.
    public let listenSeconds: Double

    public init(devicePath: String, listenSeconds: Double = 1.5) {
        self.devicePath = devicePath
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
        let stream = ReadableChunks.stream(port.descriptor, label: devicePath)
        let listen = listenSeconds
        return await withTaskGroup(of: Int?.self) { group in
            group.addTask {
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
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(listen * 1e9))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll() // ends the stream, which closes the port
            return first ?? 0
        }
    }
}
