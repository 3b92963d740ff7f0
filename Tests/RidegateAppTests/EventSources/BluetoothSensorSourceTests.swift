import Foundation
import RidegateApp
import RidegateCore
import RidegateDemo
import RidegateLinux
import RidegateTestSupport
import Testing

/// Sensors that come and go, each a simulated peripheral on a fresh socketpair when "in range". The
/// radio is the only thing faked: discovery answers from `available` and each device's advertising data,
/// and every connection runs the real ATT client against a peripheral speaking ATT PDUs.
final class SimulatedSensorLink: SensorLink, @unchecked Sendable {
    struct Device: Sendable {
        var found: FoundSensor
        /// Flags, 16-bit service UUIDs and name, as a sensor advertises them.
        var advertising: AdvertisingData
        var services: [SensorProfile]

        init(_ address: String, name: String, services: [SensorProfile], rssi: Int = -60) {
            found = FoundSensor(address: BluetoothAddress(address, kind: .random)!, name: name, rssi: rssi)
            let uuids: [UInt8] = services.flatMap(\.service.bytes)
            advertising = AdvertisingData(
                parsing: [2, 0x01, 0x06, UInt8(uuids.count + 1), 0x03] + uuids + [UInt8(name.utf8.count + 1), 0x09] + Array(name.utf8))
            self.services = services
        }

        static let strap = Device("F1:F2:F3:F4:F5:F6", name: "HR-Strap", services: [.heartRate])
    }

    let devices: [Device]
    /// Where the links are read and the sources wait.
    let loop: EventLoop
    let available = Observed<Bool>(true)
    let peripherals = Observed<[SimulatedSensorPeripheral]>([])
    /// Connections made, by address, in order.
    let connections = Observed<[String]>([])
    private let tasks = Observed<[Task<Void, Never>]>([])

    init(devices: [Device] = [.strap]) throws {
        loop = try EventLoop.started()
        self.devices = devices
    }

    var strap: FoundSensor { devices[0].found }

    func find(_ wanted: @escaping @Sendable (BluetoothAddress, AdvertisingData) -> Bool, preferred: BluetoothAddress?,
              collectFor: Double) async throws(BluetoothError) -> FoundSensor {
        while !Task.isCancelled {
            if await available.wait(timeout: 0.2, until: { $0 }),
               let device = devices.first(where: { wanted($0.found.address, $0.advertising) }) {
                return device.found
            }
            // Available, but nothing this source wants (another holds the claim): the wait above returned at
            // once, so look again shortly instead of spinning (a spinning task starved the pool: the suite hung).
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        throw .noAdapter
    }

    func connect(_ sensor: FoundSensor) async throws(BluetoothError) -> ATTBearer {
        guard available.current, let device = devices.first(where: { $0.found == sensor }) else {
            throw .connectTimeout(address: sensor.address.description, seconds: 0)
        }
        let pair: (client: ATTBearer, peripheral: FileDescriptor)
        do {
            pair = try ATTBearer.pair(label: "sim", loop: loop)
        } catch {
            throw .socket(error.errno)
        }
        let peripheral = SimulatedSensorPeripheral(descriptor: pair.peripheral, behaviour: .init(name: sensor.name ?? "?", services: device.services),
                                                   loop: loop)
        let serving = Task(executorPreference: loop) { await peripheral.run() }
        tasks.update { $0.append(serving) }
        peripherals.update { $0.append(peripheral) }
        connections.update { $0.append(sensor.address.description) }
        return pair.client
    }

    /// Every sensor goes out of range: the last link drops and nothing advertises.
    func goAway() {
        available.update { $0 = false }
        peripherals.current.last?.disconnect()
    }

    func comeBack() { available.update { $0 = true } }

    deinit { tasks.current.forEach { $0.cancel() } }
}

@Suite struct BluetoothSensorSourceTests {
    func states(_ events: [SourceEvent]) -> [SensorState] {
        events.compactMap { if case .sensorState(_, let s, _, _) = $0 { s } else { nil } }
    }

    static func heartRate(_ event: SourceEvent) -> HeartRateMeasurement? {
        if case .sensorMeasurement(_, .heartRate(let m), _) = event { m } else { nil }
    }

    @Test("A strap that disappears and comes back is reconnected without a restart, with the loss reported")
    func reconnects() async throws {
        let link = try SimulatedSensorLink()
        let log = EventLog([])
        let source = BluetoothSensorSource(selector: .auto, link: link, clock: SystemClock(), logger: CapturingLogHandler().logger(),
                                           retry: .standard(on: link.loop))
        let task = Task(executorPreference: link.loop) { await source.run(emit: log.append) }

        #expect(states(await log.wait(timeout: 10) { self.states($0).contains(.connected) }).contains(.connected))
        let first = await link.peripherals.wait(timeout: 10) { $0.first?.heartRateSubscribed == true }
        first.first?.notifyHeartRate([0x06, 72])
        #expect(await log.wait(timeout: 10) { $0.contains { Self.heartRate($0)?.beatsPerMinute == 72 } }
            .contains { Self.heartRate($0)?.beatsPerMinute == 72 && Self.heartRate($0)?.sensorContact == .detected })

        link.goAway()
        let lost = await log.wait(timeout: 10) { self.states($0).contains(.lost) }
        #expect(lost.contains { if case .sensorState(_, .lost, let reason, _) = $0 { reason == "the sensor disconnected" } else { false } }, "\(lost)")

        link.comeBack()
        let again = await log.wait(timeout: 15) { self.states($0).filter { $0 == .connected }.count >= 2 }
        #expect(states(again).filter { $0 == .connected }.count == 2)
        let second = await link.peripherals.wait(timeout: 10) { $0.count == 2 && $0[1].heartRateSubscribed }
        second.last?.notifyHeartRate([0x06, 90])
        #expect(await log.wait(timeout: 10) { $0.contains { Self.heartRate($0)?.beatsPerMinute == 90 } }
            .contains { Self.heartRate($0)?.beatsPerMinute == 90 })
        task.cancel()
        await task.value
    }

    @Test("Backoff: doubles after a connection that dropped at once, starts over after one that lasted")
    func backoffResetsAfterAStableConnection() async throws {
        let link = try SimulatedSensorLink()
        let log = EventLog([])
        let pauses = Observed<[Double]>([])
        // How long a connection lasted is the test's to say, not the machine's: a loaded machine once took more than
        // five seconds from a strap's subscription to its going away "at once".
        let elapsed = Observed<Double>(0)
        let retry = BluetoothSensorSource.Retry(backoff: ReconnectBackoff(initial: 1, maximum: 10), stableAfter: 5,
                                                now: { elapsed.current }) { seconds in
            pauses.update { $0.append(seconds) } // recorded, not slept: the strap's coming back is what the test waits for
        }
        let source = BluetoothSensorSource(selector: .auto, link: link, clock: SystemClock(), logger: CapturingLogHandler().logger(), retry: retry)
        let task = Task(executorPreference: link.loop) { await source.run(emit: log.append) }
        func connected(_ n: Int) async -> Bool {
            let events = await log.wait(timeout: 10) { self.states($0).filter { $0 == .connected }.count >= n }
            return states(events).filter { $0 == .connected }.count >= n
        }
        func dropAfter(_ seconds: Double, pausesBefore: Int) async throws {
            _ = await link.peripherals.wait(timeout: 10) { $0.count == pausesBefore + 1 && $0.last?.heartRateSubscribed == true }
            elapsed.update { $0 += seconds }
            link.goAway()
            _ = await pauses.wait(timeout: 10) { $0.count == pausesBefore + 1 }
            link.comeBack()
        }
        #expect(await connected(1))
        try await dropAfter(5.5, pausesBefore: 0) // lasted: 1 s, and the next starts at 1 again
        #expect(await connected(2))
        try await dropAfter(0, pausesBefore: 1)   // dropped at once: doubles to 2
        #expect(await connected(3))
        try await dropAfter(5.5, pausesBefore: 2) // lasted again: back to 1, not 4
        #expect(pauses.current == [1, 2, 1])
        task.cancel()
        await task.value
    }

    @Test("Two auto straps (a tandem) take two different straps; a power meter that also advertises CSC is one connection, the power meter's")
    func claimsShareDevicesOut() async throws {
        let second = SimulatedSensorLink.Device("E1:E2:E3:E4:E5:E6", name: "Strap 2", services: [.heartRate], rssi: -70)
        let meter = SimulatedSensorLink.Device("D1:D2:D3:D4:D5:D6", name: "4iiii", services: [.power, .speedCadence])
        let link = try SimulatedSensorLink(devices: [.strap, second, meter])
        let claims = SensorClaims(configuredKinds: [.heartRate, .power, .speedCadence])
        let log = EventLog([])
        let capture = CapturingLogHandler()
        let logger = capture.logger()
        let sources = [
            BluetoothSensorSource(kind: .heartRate, selector: .auto, link: link, claims: claims, clock: SystemClock(), logger: logger,
                                  retry: .standard(on: link.loop)),
            BluetoothSensorSource(kind: .heartRate, selector: .auto, link: link, claims: claims, clock: SystemClock(), logger: logger,
                                  retry: .standard(on: link.loop)),
            BluetoothSensorSource(
                kind: .power, selector: .auto, wheelMillimetres: 2096, link: link, claims: claims, clock: SystemClock(), logger: logger,
                                  retry: .standard(on: link.loop)),
            BluetoothSensorSource(kind: .speedCadence, selector: .auto, link: link, claims: claims, clock: SystemClock(), logger: logger,
                                  retry: .standard(on: link.loop)),
        ]
        let tasks = sources.map { source in Task(executorPreference: link.loop) { await source.run(emit: log.append) } }
        let connected = await log.wait(timeout: 10) { self.states($0).filter { $0 == .connected }.count >= 3 }
        try await TestTime.pause(0.5) // the speed/cadence source keeps looking: nothing else advertises CSC
        let refs = connected.compactMap { if case .sensorState(let ref, .connected, _, _) = $0 { ref } else { nil } }
        #expect(Set(refs.map(\.id)) == ["f1f2f3f4f5f6", "e1e2e3e4e5e6", "d1d2d3d4d5d6"])
        #expect(refs.first { $0.id == "d1d2d3d4d5d6" }?.kind == .power)
        #expect(refs.first { $0.id == "d1d2d3d4d5d6" }?.wheelMillimetres == 2096)
        #expect(link.connections.current.sorted() == ["D1:D2:D3:D4:D5:D6", "E1:E2:E3:E4:E5:E6", "F1:F2:F3:F4:F5:F6"], "\(capture.lines)")
        // The one connection carries both of the meter's services, under the power meter's topics.
        let details = log.current.compactMap { if case .sensorDetails(let ref, let d, _) = $0, ref.kind == .power { d } else { nil } }.first
        #expect(details?.measures == [.power, .cadence, .wheelSpeed])
        #expect(details?.sensorLocation == "left_crank")
        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
    }

    @Test("A device advertising Cycling Power and CSC belongs to the power source while one is configured, whichever source finds it first; with none, a speed/cadence source may take it")
    func powerMeterWithCSCBelongsToThePowerSource() {
        let meter = SimulatedSensorLink.Device("D1:D2:D3:D4:D5:D6", name: "4iiii", services: [.power, .speedCadence])
        let speedSensor = SimulatedSensorLink.Device("C1:C2:C3:C4:C5:C6", name: "Speed", services: [.speedCadence])
        let withPower = SensorClaims(configuredKinds: [.heartRate, .power, .speedCadence])
        #expect(withPower.belongsElsewhere(meter.advertising, searchedAs: .speedCadence))
        #expect(!withPower.belongsElsewhere(meter.advertising, searchedAs: .power))
        #expect(!withPower.belongsElsewhere(speedSensor.advertising, searchedAs: .speedCadence))
        let withoutPower = SensorClaims(configuredKinds: [.heartRate, .speedCadence])
        #expect(!withoutPower.belongsElsewhere(meter.advertising, searchedAs: .speedCadence))
    }

    @Test("A named power meter: only a device advertising Cycling Power matches its pattern")
    func namePatternNeedsTheKindsService() {
        let strapNamedLikeAMeter = SimulatedSensorLink.Device("C1:C2:C3:C4:C5:C6", name: "4iiii strap", services: [.heartRate])
        let meter = SimulatedSensorLink.Device("D1:D2:D3:D4:D5:D6", name: "4iiii Precision", services: [.power])
        let selector = SensorSelector(configured: "4iiii*")
        #expect(!selector.matches(address: strapNamedLikeAMeter.found.address, advertising: strapNamedLikeAMeter.advertising, kind: .power))
        #expect(selector.matches(address: meter.found.address, advertising: meter.advertising, kind: .power))
        #expect(!SensorSelector.auto.matches(address: meter.found.address, advertising: meter.advertising, kind: .speedCadence))
        #expect(SensorSelector.auto.matches(address: meter.found.address, advertising: meter.advertising, kind: .power))
    }
}
