import Glibc
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

@Suite struct SerialPortTests {
    @Test("Bytes written to a pty arrive through the serial port in raw mode, unchanged (CR LF kept)")
    func ptyCarriesBytes() async throws {
        let loop = try EventLoop.started()
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let port = try SerialPort.open(path: pty.devicePath, baud: 9600)
        let line = NMEAText.sentence("GPZDA,160012.71,11,03,2004,-1,00") + "\r\n"
        try pty.controller.writeAll(Array(line.utf8))
        var received: [UInt8] = []
        for try await chunk in ReadableChunks.stream(port.descriptor, label: "test", on: loop) {
            received += chunk
            if received.count >= line.utf8.count { break }
        }
        #expect(received == Array(line.utf8))
    }

    @Test("Closing the device's other end ends the stream at once (a hung-up tty reads end of file), not a hang")
    func hangupEndsStream() async throws {
        let loop = try EventLoop.started()
        let pty = try PseudoTerminal()
        let port = try SerialPort.open(path: pty.devicePath, baud: 115_200)
        try pty.controller.writeAll(Array("$GP".utf8))
        // How the stream ended: "eio", "other: …", or "finished"; nil while it has not (a hang fails below).
        let ending = Observed<String?>(nil)
        let chunks = Observed(0)
        let reader = Task(executorPreference: loop) {
            do {
                for try await _ in ReadableChunks.stream(port.descriptor, label: "test", on: loop) {
                    chunks.update { $0 += 1 }
                    pty.close()
                }
                ending.update { $0 = "finished" }
            } catch let error as SystemCallError where error.errno == Errno(rawValue: EIO) {
                ending.update { $0 = "eio" }
            } catch {
                ending.update { $0 = "other: \(error)" }
            }
        }
        let how = await ending.wait(timeout: TestTime.seconds(15)) { $0 != nil }
        reader.cancel()
        // A hung-up tty reads 0 (hung_up_tty_read); a USB adapter that vanishes gives EIO instead, which the
        // stream throws and GPSSource treats the same way (GPSSourceTests unplugs a device for real).
        #expect(how == "finished", "the stream ended as \(how ?? "nothing: it hung")")
        #expect(chunks.current == 1)
    }

    @Test("Clear errors: a missing device, an unsupported rate, a file that is not a tty")
    func errors() throws {
        #expect(throws: SerialPortError.self) { try SerialPort.open(path: "/dev/ridegate-test-missing", baud: 9600) }
        do {
            _ = try SerialPort.open(path: "/dev/ridegate-test-missing", baud: 9600)
        } catch {
            #expect(error.description.contains("no such device"))
        }
        do {
            _ = try SerialPort.open(path: "/dev/null", baud: 12345)
            Issue.record("12345 baud must be refused")
        } catch {
            #expect(error.description.contains("12345 baud is not supported"))
        }
        do {
            _ = try SerialPort.open(path: "/dev/null", baud: 9600)
            Issue.record("/dev/null is not a tty")
        } catch {
            #expect(error.description.contains("not a serial device"))
        }
    }

    @Test("The line splitter bounds memory on endless noise and keeps the lines around it")
    func lineSplitterNoise() {
        var splitter = LineSplitter(maximumLength: 100)
        var lines: [String] = []
        splitter.append(Array("$A\r\n".utf8) + [UInt8](repeating: 0x55, count: 10_000) + Array("\n$B\n$C".utf8)) {
            lines.append(String(decoding: $0, as: UTF8.self))
        }
        splitter.flush { lines.append(String(decoding: $0, as: UTF8.self)) }
        #expect(lines == ["$A\r", "$B", "$C"])
        #expect(splitter.overlongLines == 1)
    }
}
