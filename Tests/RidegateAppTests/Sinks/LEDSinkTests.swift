import RidegateApp
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// The LED sink's promise at an orderly stop (what the unit's ExecStopPost repeats): the lines are driven
/// low before they are released, so an LED is never left lit by a stopped daemon.
@Suite struct LEDSinkTests {
    /// Every call the sink makes, in order.
    final class RecordingOutput: LEDOutput, @unchecked Sendable {
        let calls = Observed<[String]>([])
        let showsEdges: Bool
        init(showsEdges: Bool = true) { self.showsEdges = showsEdges }
        func set(_ lines: UInt8) { calls.update { $0.append("set \(lines)") } }
        func willShow(_ signal: LEDSignal, pattern: BlinkPattern) { calls.update { $0.append("show") } }
        func release() { calls.update { $0.append("release") } }
    }

    @Test("Shutdown drives every line low, then releases; nothing is driven after that")
    func shutdownDrivesLowThenReleases() async throws {
        let loop = try EventLoop.started()
        let output = RecordingOutput()
        // An RGB LED shows a zone as a steady colour: lit, with no timer that could darken it by chance.
        let sink = LEDSink(output: output, layout: .rgb, loop: loop)
        sink.apply(.showOnLED(.zone(5, of: 5)))
        let lit = await output.calls.wait(timeout: 5) { $0.contains { $0.hasPrefix("set ") && $0 != "set 0" } }
        #expect(lit.last.map { $0.hasPrefix("set ") && $0 != "set 0" } == true, "calls: \(lit)")
        await sink.shutdown()
        sink.apply(.showOnLED(.zone(1, of: 5)))
        let calls = output.calls.current
        #expect(calls.suffix(2) == ["set 0", "release"], "calls: \(calls)")
        #expect(calls.filter { $0 == "release" }.count == 1)
    }

    @Test("A lamp follows a blinking pattern's edges; the console, which shows only the signal, gets no timer at all")
    func edgesOnlyWhereTheyShow() async throws {
        let loop = try EventLoop.started()
        let lamp = RecordingOutput()
        let console = RecordingOutput(showsEdges: false)
        let lampSink = LEDSink(output: lamp, loop: loop)
        let consoleSink = LEDSink(output: console, loop: loop)
        lampSink.apply(.showOnLED(.searchingForStrap))
        consoleSink.apply(.showOnLED(.searchingForStrap))
        // The lamp blinks: several edges pass; by then the console would have seen them too.
        let blinked = await lamp.calls.wait(timeout: 10) { $0.filter { $0.hasPrefix("set ") }.count >= 4 }
        #expect(blinked.filter { $0.hasPrefix("set ") }.count >= 4, "lamp: \(blinked)")
        #expect(console.calls.current == ["show", "set 1"] || console.calls.current == ["show", "set 0"], "console: \(console.calls.current)")
        await lampSink.shutdown()
        await consoleSink.shutdown()
    }
}
