import Foundation
import RidegateApp
import RidegateCore
import RidegateDemo
import RidegateLinux
import RidegateTestSupport
import Testing

/// The real ATT client and strap session against a simulated peripheral speaking ATT PDUs over a
/// socketpair(AF_UNIX, SOCK_SEQPACKET): the same message semantics as the L2CAP socket on a Pi.
@Suite struct SensorConnectionTests {
    func heartRates(_ events: [SourceEvent]) -> [HeartRateMeasurement] {
        events.compactMap { if case .sensorMeasurement(_, .heartRate(let m), _) = $0 { m } else { nil } }
    }

    @Test("Discovery, CCCD write, details, then every notification decoded")
    func fullSession() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "test", loop: loop)
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, loop: loop)
        let log = EventLog([])
        let peripheralTask = Task(executorPreference: loop) { await peripheral.run() }
        let captured = CapturingLogHandler()
        let connection = SensorConnection(sensor: .strap("s1"), bearer: link.client, clock: SystemClock(), logger: captured.logger())
        let session = Task(executorPreference: loop) { await connection.run(emit: log.append) }
        let connected = await log.wait(timeout: 10) { $0.contains { if case .sensorDetails = $0 { true } else { false } } }
        #expect(peripheral.heartRateSubscribed)
        let details = connected.compactMap { if case .sensorDetails(_, let d, _) = $0 { d } else { nil } }.first
        #expect(details == SensorDetails(name: "HR-Strap", bodyLocation: "chest", batteryPercent: 87, measures: [.heartRate]))
        for bpm in [60, 120, 300] {
            peripheral.notifyHeartRate(HeartRateMeasurement(format: bpm > 255 ? .uint16 : .uint8, beatsPerMinute: bpm,
                                                            sensorContact: .detected, rrIntervalsRaw: [1024]).encoded)
        }
        peripheral.notifyHeartRate([0x10, 0x48, 0xE8]) // truncated RR: reported, not fatal
        peripheral.notifyHeartRate([0x00, 0x50])
        let events = await log.wait(timeout: 10) { self.heartRates($0).count >= 4 }
        #expect(heartRates(events).map(\.beatsPerMinute) == [60, 120, 300, 80])
        #expect(events.contains { if case .sensorUndecodable(_, let e, _) = $0 { e.contains("odd number of RR interval bytes") } else { false } })
        // Logged, with the bytes, once (the next within a minute would only be counted).
        #expect(captured.lines.filter { $0.contains("could not be decoded") && $0.contains("1048e8") }.count == 1, "\(captured.lines)")

        // The strap goes away mid-session: the session ends and says so.
        peripheral.disconnect()
        #expect(await session.value == .disconnected)
        peripheralTask.cancel()
    }

    @Test("A strap that requires pairing is reported with the ATT error, clearly")
    func pairingRequired() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "test", loop: loop)
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, behaviour: .init(requirePairing: true), loop: loop)
        let peripheralTask = Task(executorPreference: loop) { await peripheral.run() }
        let connection = SensorConnection(sensor: .strap("s1"), bearer: link.client, clock: SystemClock(), logger: CapturingLogHandler().logger())
        // Cut off after 10 s: a session that never asks for what needs pairing would otherwise wait forever.
        let session = Task(executorPreference: loop) { await connection.run(emit: { _ in }) }
        let deadline = Task { try await TestTime.pause(10); session.cancel() }
        let reason = await session.value
        deadline.cancel()
        #expect(reason == .peer(request: 0x12, handle: 7, code: .insufficientAuthentication))
        #expect(reason.description.contains("requires pairing"))
        peripheralTask.cancel()
    }

    @Test("A silent peer fails the transaction at the ATT timeout and the link is dropped")
    func silentPeer() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "test", loop: loop)
        let peripheral = SimulatedSensorPeripheral(descriptor: link.peripheral, behaviour: .init(silent: true), loop: loop)
        let peripheralTask = Task(executorPreference: loop) { await peripheral.run() }
        let connection = SensorConnection(sensor: .strap("s1"), bearer: link.client, clock: SystemClock(), logger: CapturingLogHandler().logger(),
                                         transactionTimeout: 0.3)
        #expect(await connection.run(emit: { _ in }) == .timeout)
        peripheralTask.cancel()
    }

    @Test("The peer hangs up in the middle of a transaction: the request fails, nothing hangs")
    func disconnectMidTransaction() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "test", loop: loop)
        let client = ATTClient(bearer: link.client, transactionTimeout: 30)
        let reader = Task(executorPreference: loop) { await client.run() }
        let request = Task(executorPreference: loop) { try await client.exchangeMTU() }
        // Read the request on the raw peer end, then hang up without answering.
        let peer = PacketPeer(link.peripheral, loop: loop)
        #expect(await peer.receive() == ATTPDU.exchangeMTURequest(mtu: 247).encoded)
        peer.close()
        await #expect(throws: ATTClientError.self) { try await request.value }
        #expect(await reader.value == .disconnected)
    }

    @Test("Malformed responses fail the request; indications are confirmed; stray PDUs are ignored")
    func malformedAndIndications() async throws {
        let loop = try EventLoop.started()
        let link = try ATTBearer.pair(label: "test", loop: loop)
        let client = ATTClient(bearer: link.client, transactionTimeout: 5)
        let reader = Task(executorPreference: loop) { await client.run() }
        let peer = PacketPeer(link.peripheral, loop: loop)

        let request = Task(executorPreference: loop) { try await client.read(9) }
        #expect(await peer.receive() == [0x0A, 0x09, 0x00])
        peer.send([0xFF, 0x01])          // an opcode nobody asked about: ignored
        peer.send([0x01, 0x0A])          // a truncated error response: fails the read
        await #expect(throws: ATTClientError.self) { try await request.value }

        peer.send(ATTPDU.indication(handle: 6, value: [0x00, 0x55]).encoded)
        #expect(await peer.receive() == ATTPDU.confirmation.encoded)
        var notifications = client.notifications.makeAsyncIterator()
        let first = try await notifications.next()
        #expect(first?.handle == 6 && first?.value == [0x00, 0x55])
        peer.close()
        _ = await reader.value
    }
}
