import Foundation
import RidegateApp
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

@Suite struct GPSSourceTests {
    func epoch(_ second: Int) -> String {
        let t = String(format: "1200%02d.00", second)
        return NMEAText.sentence("GPGGA,\(t),4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-18.0,M,,") + "\r\n"
            + NMEAText.sentence("GPRMC,\(t),A,4000.00000,N,10500.00000,W,10.000,90.0,210626,,,A") + "\r\n"
    }

    @Test("NMEA through a pty reaches the real reader and parser as fixes")
    func fixesFromPty() async throws {
        let loop = try EventLoop.started()
        let pty = try PseudoTerminal()
        let log = EventLog([])
        let said = CapturingLogHandler()
        let source = GPSSource(devicePath: pty.devicePath, baud: .fixed(9600), clock: SystemClock(),
                               logger: said.logger(), loop: loop, stopWhenDeviceCloses: true)
        let task = Task(executorPreference: loop) { await source.run(emit: log.append) }
        // Noise, a bad checksum and a collision on the way must not disturb anything.
        try pty.controller.writeAll(Array(("\u{1}\u{2}garbage\r\n$GPGGA,bad*00\r\n" + epoch(0) + epoch(1) + epoch(2)).utf8))
        #expect(await log.wait(timeout: 10) { $0.fixes.count >= 2 }.fixes.count >= 2)
        let fixes = log.current.fixes
        #expect(fixes.first?.time?.iso8601 == "2026-06-21T12:00:00.000Z")
        #expect(fixes.allSatisfy { $0.mode == .threeD && $0.latitude == 40 })
        // The device closes in the middle of an epoch (its GGA came, its RMC never will): that epoch still counts.
        // (A text sentence after it, logged, says the reader has both: closing sooner would drop what the tty holds.)
        try pty.controller.writeAll(Array((NMEAText.sentence("GPGGA,120003.00,4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-18.0,M,,") + "\r\n"
            + NMEAText.sentence("GPTXT,01,01,02,last words") + "\r\n").utf8))
        for _ in 0..<200 where !said.lines.contains(where: { $0.contains("last words") }) { try await Task.sleep(nanoseconds: 10_000_000) }
        pty.close()
        await task.value // the device closed: the source stops (demo mode)
        #expect(log.current.states.last == .noDevice)
        #expect(log.current.fixes.last?.time?.iso8601 == "2026-06-21T12:00:03.000Z")
    }

    @Test("Unplugged mid-stream and plugged back: the reader notices, waits, and resumes on the same path")
    func survivesUnplug() async throws {
        let loop = try EventLoop.started()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-gps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let link = dir.appendingPathComponent("ridegate-gps").path // like the udev symlink
        var pty = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.devicePath)
        let log = EventLog([])
        let source = GPSSource(devicePath: link, baud: .fixed(9600), clock: SystemClock(), logger: CapturingLogHandler().logger(), loop: loop)
        let task = Task(executorPreference: loop) { await source.run(emit: log.append) }
        try pty.controller.writeAll(Array((epoch(0) + epoch(1) + epoch(2)).utf8))
        #expect(await log.wait(timeout: 10) { $0.fixes.count >= 2 }.fixes.count >= 2)

        // Unplug: the device node disappears. The link goes first: a reader reopening it in between would
        // reach /dev/pts/N after the pty closed, a number the tests running beside this one reuse at once.
        try FileManager.default.removeItem(atPath: link)
        pty.close()
        #expect(await log.wait(timeout: 10) { $0.states.contains(.noDevice) }.states.contains(.noDevice))
        let before = log.current.fixes.count

        // Plug back in: a new device behind the same link.
        pty = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.devicePath)
        // An epoch a second until the reader is back (it looks for the device every second or so; how soon is not
        // timed here: on a loaded machine the suite's own load decides that).
        for second in 3...32 {
            try pty.controller.writeAll(Array(epoch(second).utf8))
            if await log.wait(timeout: 1, until: { $0.fixes.count > before + 1 }).fixes.count > before + 1 { break }
        }
        #expect(log.current.fixes.count > before + 1)
        task.cancel()
        await task.value
        pty.close()
    }

    @Test("An open device that sends nothing parseable is reported as no_data, and ok again when data returns")
    func noData() async throws {
        let loop = try EventLoop.started()
        let pty = try PseudoTerminal()
        let log = EventLog([])
        let source = GPSSource(devicePath: pty.devicePath, baud: .fixed(9600), clock: SystemClock(),
                               logger: CapturingLogHandler().logger(), loop: loop, stopWhenDeviceCloses: true, dataTimeout: 0.3)
        let task = Task(executorPreference: loop) { await source.run(emit: log.append) }
        try pty.controller.writeAll(Array("\u{0}\u{1}noise at the wrong baud rate\r\n".utf8))
        #expect(await log.wait(timeout: 10) { $0.states.contains(.noData) }.states.contains(.noData))
        try pty.controller.writeAll(Array((epoch(0) + epoch(1) + epoch(2)).utf8))
        #expect(await log.wait(timeout: 10) { $0.fixes.count >= 2 }.fixes.count >= 2)
        pty.close()
        await task.value
    }

    @Test("Baud auto-detection finds a talking receiver, and gives up on silence with a clear error")
    func autoBaud() async throws {
        let loop = try EventLoop.started()
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let feeder = PeriodicWriter(pty.controller, every: 0.05) { second in epoch(second % 10) }
        let rate = try await BaudRateDetector(devicePath: pty.devicePath, loop: loop, listenSeconds: 1).detect()
        feeder.stop()
        #expect(rate == 9600) // a pty carries any rate: the first candidate hears valid checksums
        let silent = try PseudoTerminal()
        defer { silent.close() }
        #expect(try await BaudRateDetector(devicePath: silent.devicePath, loop: loop, listenSeconds: 0.05).detect() == nil)
    }
}
