import Foundation
import RidegateApp
import RidegateCore
import RidegateLinux
import RidegateTestSupport
import Testing

/// Straps that come and go, each a simulated peripheral on a fresh socketpair when "in range". The
/// radio is the only thing faked: discovery answers from `available`, and every connection runs the
/// real ATT client against a peripheral speaking ATT PDUs.
final class SimulatedStrapLink: StrapLink, @unchecked Sendable {
    let strap = FoundStrap(address: BluetoothAddress("F1:F2:F3:F4:F5:F6", kind: .random)!, name: "HR-Strap", rssi: -60)
    let available = Observed<Bool>(true)
    let peripherals = Observed<[SimulatedSensorPeripheral]>([])
    private let tasks = Observed<[Task<Void, Never>]>([])

    func find(_ selector: StrapSelector, preferred: BluetoothAddress?, collectFor: Double) async throws(BluetoothError) -> FoundStrap {
        while !Task.isCancelled {
            if await available.wait(timeout: 1, until: { $0 }) { return strap }
        }
        throw .noAdapter
    }

    func connect(_ strap: FoundStrap) async throws(BluetoothError) -> ATTBearer {
        guard available.current else { throw .connectTimeout(address: strap.address.description, seconds: 0) }
        let pair: (client: ATTBearer, peripheral: FileDescriptor)
        do {
            pair = try ATTBearer.pair(label: "sim")
        } catch {
            throw .socket(error.errno)
        }
        let peripheral = SimulatedSensorPeripheral(descriptor: pair.peripheral)
        let serving = Task { await peripheral.run() }
        tasks.update { $0.append(serving) }
        peripherals.update { $0.append(peripheral) }
        return pair.client
    }

    /// The strap goes out of range: the link drops and it stops advertising.
    func goAway() {
        available.update { $0 = false }
        peripherals.current.last?.disconnect()
    }

    func comeBack() { available.update { $0 = true } }

    deinit { tasks.current.forEach { $0.cancel() } }
}

@Suite struct HeartRateStrapSourceTests {
    func states(_ events: [SourceEvent]) -> [StrapState] {
        events.compactMap { if case .strapState(_, let s, _, _) = $0 { s } else { nil } }
    }

    @Test("A strap that disappears and comes back is reconnected without a restart, with the loss reported")
    func reconnects() async throws {
        let link = SimulatedStrapLink()
        let log = EventLog([])
        let source = HeartRateStrapSource(selector: .auto, link: link, clock: SystemClock(), logger: CapturingLogHandler().logger())
        let task = Task { await source.run(emit: log.append) }

        #expect(states(await log.wait(timeout: 10) { self.states($0).contains(.connected) }).contains(.connected))
        let first = await link.peripherals.wait(timeout: 10) { $0.first?.heartRateSubscribed == true }
        first.first?.notifyHeartRate([0x06, 72])
        #expect(await log.wait(timeout: 10) { $0.contains { if case .heartRate(_, let m, _) = $0 { m.beatsPerMinute == 72 } else { false } } }
            .contains { if case .heartRate(_, let m, _) = $0 { m.beatsPerMinute == 72 && m.sensorContact == .detected } else { false } })

        link.goAway()
        let lost = await log.wait(timeout: 10) { self.states($0).contains(.lost) }
        #expect(lost.contains { if case .strapState(_, .lost, let reason, _) = $0 { reason == "the strap disconnected" } else { false } })

        let cameBack = Date()
        link.comeBack()
        let again = await log.wait(timeout: 15) { self.states($0).filter { $0 == .connected }.count >= 2 }
        #expect(states(again).filter { $0 == .connected }.count == 2)
        #expect(Date().timeIntervalSince(cameBack) < TestTime.seconds(5)) // back within 5 s of advertising again
        let second = await link.peripherals.wait(timeout: 10) { $0.count == 2 && $0[1].heartRateSubscribed }
        second.last?.notifyHeartRate([0x06, 90])
        #expect(await log.wait(timeout: 10) { $0.contains { if case .heartRate(_, let m, _) = $0 { m.beatsPerMinute == 90 } else { false } } }
            .contains { if case .heartRate(_, let m, _) = $0 { m.beatsPerMinute == 90 } else { false } })
        task.cancel()
        await task.value
    }

    @Test("Backoff: doubles after a connection that dropped at once, starts over after one that lasted")
    func backoffResetsAfterAStableConnection() async throws {
        let link = SimulatedStrapLink()
        let log = EventLog([])
        let pauses = Observed<[Double]>([])
        let retry = HeartRateStrapSource.Retry(backoff: ReconnectBackoff(initial: 1, maximum: 10), stableAfter: 0.3) { seconds in
            pauses.update { $0.append(seconds) } // recorded, not slept: the strap's coming back is what the test waits for
        }
        let source = HeartRateStrapSource(selector: .auto, link: link, clock: SystemClock(), logger: CapturingLogHandler().logger(), retry: retry)
        let task = Task { await source.run(emit: log.append) }
        func connected(_ n: Int) async -> Bool {
            let events = await log.wait(timeout: 10) { self.states($0).filter { $0 == .connected }.count >= n }
            return states(events).filter { $0 == .connected }.count >= n
        }
        func dropAfter(_ seconds: Double, pausesBefore: Int) async throws {
            _ = await link.peripherals.wait(timeout: 10) { $0.count == pausesBefore + 1 && $0.last?.heartRateSubscribed == true }
            try await TestTime.pause(seconds)
            link.goAway()
            _ = await pauses.wait(timeout: 10) { $0.count == pausesBefore + 1 }
            link.comeBack()
        }
        #expect(await connected(1))
        try await dropAfter(0.6, pausesBefore: 0) // lasted: 1 s, and the next starts at 1 again
        #expect(await connected(2))
        try await dropAfter(0, pausesBefore: 1)   // dropped at once: doubles to 2
        #expect(await connected(3))
        try await dropAfter(0.6, pausesBefore: 2) // lasted again: back to 1, not 4
        #expect(pauses.current == [1, 2, 1])
        task.cancel()
        await task.value
    }
}
