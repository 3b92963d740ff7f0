import RidegateCore
import Testing

@Suite struct ATTPDUTests {
    @Test("PDUs round-trip through encode and decode")
    func roundTrip() throws {
        let pdus: [ATTPDU] = [
            .exchangeMTURequest(mtu: 247), .exchangeMTUResponse(mtu: 185),
            .readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService),
            .readByGroupTypeResponse([(1, 3, [0x00, 0x18]), (4, 9, [0x0D, 0x18])]),
            .readByTypeRequest(start: 4, end: 9, type: .characteristic),
            .readByTypeResponse([(5, [0x10, 0x06, 0x00, 0x37, 0x2A])]),
            .findInformationRequest(start: 7, end: 7), .findInformationResponse([(7, .clientCharacteristicConfiguration)]),
            .readRequest(handle: 9), .readResponse([1]), .writeRequest(handle: 7, value: [1, 0]), .writeResponse,
            .notification(handle: 6, value: [0x06, 0x48]), .indication(handle: 6, value: [0]), .confirmation,
            .errorResponse(request: 0x12, handle: 7, code: .insufficientAuthentication),
        ]
        for pdu in pdus {
            #expect(try ATTPDU(decoding: pdu.encoded) == pdu)
        }
    }

    @Test("Truncated and inconsistent PDUs are errors that keep the bytes, never traps")
    func malformed() {
        for bytes: [UInt8] in [[], [0x01, 0x12], [0x03, 0x17], [0x09, 0x07, 0x05, 0x00], [0x11, 0x02, 0, 0, 0, 0],
                               [0x05, 0x03, 0x07, 0x00, 0x02, 0x29], [0x1B, 0x06], [0x08, 1, 0, 0xFF, 0xFF, 0x00]] {
            do {
                _ = try ATTPDU(decoding: bytes)
                Issue.record("\(bytes.hexString) should not decode")
            } catch {
                #expect(error.pdu == bytes)
            }
        }
        // Every prefix of a valid response decodes or fails cleanly.
        let full = ATTPDU.readByTypeResponse([(5, [0x10, 0x06, 0x00, 0x37, 0x2A]), (8, [0x02, 0x09, 0x00, 0x38, 0x2A])]).encoded
        for n in 0...full.count { _ = try? ATTPDU(decoding: Array(full.prefix(n))) }
    }

    @Test("128-bit UUIDs on the Bluetooth base become 16-bit ones")
    func uuids() {
        let base: [UInt8] = [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x0D, 0x18, 0x00, 0x00]
        #expect(BluetoothUUID(bytes: base[...]) == .heartRateService)
        #expect(BluetoothUUID(bytes: [1, 2, 3][...]) == nil)
        #expect(BluetoothUUID.heartRateMeasurement.description == "0x2A37")
    }
}

@Suite struct AdvertisingDataTests {
    @Test("A strap's advertisement: flags, 16-bit service list, complete name, TX power, appearance")
    func strap() {
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x09, 0x09] + Array("Polar H".utf8) + [0x31,
                              0x02, 0x0A, 0xF4, 0x03, 0x19, 0x41, 0x03]
        let ad = AdvertisingData(parsing: bytes)
        #expect(ad.flags == 0x06)
        #expect(ad.serviceUUIDs == [.heartRateService, .batteryService])
        #expect(ad.advertisesHeartRate)
        #expect(ad.localName == "Polar H1" && ad.nameIsComplete)
        #expect(ad.txPower == -12)
        #expect(ad.appearance == 0x0341)
        #expect(ad.malformedAt == nil)
    }

    @Test("Service data and 128-bit lists also announce the service; a scan response's name merges in")
    func serviceDataAndMerge() {
        var ad = AdvertisingData(parsing: [0x05, 0x16, 0x0D, 0x18, 0x48, 0x00, 0x04, 0x08] + Array("HR1".utf8))
        #expect(ad.advertisesHeartRate)
        #expect(ad.localName == "HR1" && !ad.nameIsComplete)
        ad.merge(AdvertisingData(parsing: [0x07, 0x09] + Array("HR-One".utf8)))
        #expect(ad.localName == "HR-One")
    }

    @Test("A length running past the end stops parsing there and keeps what came before")
    func malformedLength() {
        let ad = AdvertisingData(parsing: [0x03, 0x03, 0x0D, 0x18, 0x09, 0x09, 0x41, 0x42])
        #expect(ad.advertisesHeartRate)
        #expect(ad.localName == nil)
        #expect(ad.malformedAt == 4)
        #expect(AdvertisingData(parsing: [0x00, 0xFF, 0xFF]).malformedAt == nil) // zero length: padding
        #expect(AdvertisingData(parsing: [0xFF]).malformedAt == 0)
    }

    @Test("Addresses parse and print")
    func addresses() {
        #expect(BluetoothAddress("f1:f2:f3:f4:f5:f6", kind: .random)?.description == "F1:F2:F3:F4:F5:F6")
        #expect(BluetoothAddress("F1:F2:F3:F4:F5") == nil)
        #expect(BluetoothAddress("G1:F2:F3:F4:F5:F6") == nil)
    }
}

@Suite struct SensorSelectorTests {
    let strap = AdvertisingData(parsing: [0x03, 0x03, 0x0D, 0x18, 0x0A, 0x09] + Array("Polar H10".utf8))
    let other = AdvertisingData(parsing: [0x03, 0x03, 0x0F, 0x18, 0x05, 0x09] + Array("Lamp".utf8))
    let address = BluetoothAddress("AA:BB:CC:DD:EE:FF")!

    @Test("Config entries become selectors")
    func parsing() {
        #expect(SensorSelector(configured: "auto") == .auto)
        #expect(SensorSelector(configured: "aa:bb:cc:dd:ee:ff") == .address(address))
        #expect(SensorSelector(configured: "Polar*") == .namePattern("Polar*"))
    }

    @Test("Matching by address, name pattern, or any heart-rate advertiser")
    func matching() {
        #expect(SensorSelector.auto.matches(address: address, advertising: strap))
        #expect(!SensorSelector.auto.matches(address: address, advertising: other))
        #expect(SensorSelector.namePattern("polar h*").matches(address: address, advertising: strap))
        #expect(SensorSelector.namePattern("*H10").matches(address: address, advertising: strap))
        #expect(!SensorSelector.namePattern("Wahoo*").matches(address: address, advertising: strap))
        #expect(SensorSelector.address(address).matches(address: address, advertising: other))
    }

    @Test("The backoff doubles to its ceiling and resets")
    func backoff() {
        var b = ReconnectBackoff(initial: 1, maximum: 10)
        #expect((0..<6).map { _ in b.delay() } == [1, 2, 4, 8, 10, 10])
        b.reset()
        #expect(b.delay() == 1)
    }

    @Test("Jittered: each delay at its random point of the doubling window, never below 0.1 s, never past the ceiling")
    func jitteredBackoff() {
        var b = ReconnectBackoff(initial: 1, maximum: 10)
        #expect([0.5, 0.5, 0.25, 0.999, 0, 1.5, .nan].map { b.jittered($0) } == [0.5, 1, 1, 7.992, 0.1, 10, 10])
        // A fleet's first retries after losing the broker together: spread over the window, not one instant.
        var fleet = (0..<100).map { _ in ReconnectBackoff(initial: 1, maximum: 10) }
        let firsts = fleet.indices.map { fleet[$0].jittered(Double($0) / 100) }
        #expect(Set(firsts).count == 90 && (firsts.max() ?? 1) < 1 && firsts.min() == 0.1)
    }
}

@Suite struct ManagementEventTests {
    @Test("Device Found: address (little-endian), type, RSSI, and its advertising data")
    func deviceFound() {
        let eir: [UInt8] = [0x03, 0x03, 0x0D, 0x18, 0x09, 0x09] + Array("HR-Strap".utf8)
        let parameters: [UInt8] = [0xF6, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0x02, 0xC4, 0, 0, 0, 0, UInt8(eir.count), 0] + eir
        let packet: [UInt8] = [0x12, 0x00, 0x00, 0x00, UInt8(parameters.count), 0x00] + parameters
        var index: UInt16 = 9
        guard case .deviceFound(let d) = ManagementEvent(packet: packet, index: &index) else {
            Issue.record("not decoded")
            return
        }
        #expect(index == 0)
        #expect(d.address.description == "F1:F2:F3:F4:F5:F6" && d.address.kind == .random)
        #expect(d.rssi == -60)
        #expect(d.advertising.advertisesHeartRate && d.advertising.localName == "HR-Strap")
        // Truncated anywhere: nil, never a trap.
        for n in 0..<packet.count { _ = ManagementEvent(packet: Array(packet.prefix(n)), index: &index) }
        #expect(ManagementEvent(packet: Array(packet.prefix(20)), index: &index) == nil)
    }

    @Test("Commands are framed with opcode, index and length")
    func commands() {
        #expect(
            ManagementCommand.packet(ManagementCommand.startDiscovery, index: 0, parameters: [0x06]) == [0x23, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06])
        #expect(ManagementEvent.describe(status: 0x14).contains("CAP_NET_ADMIN"))
    }
}

@Suite struct SensorKindTests {
    @Test("A device's sensor kinds come from the services it advertises; a power meter may advertise CSC too")
    func kindsFromAdvertising() {
        // Flags, then a complete list of 16-bit service UUIDs: Cycling Power and CSC.
        let powerMeter = AdvertisingData(parsing: [0x02, 0x01, 0x06, 0x05, 0x03, 0x18, 0x18, 0x16, 0x18])
        #expect(powerMeter.sensorKinds == [.speedCadence, .power])
        let strap = AdvertisingData(parsing: [0x03, 0x03, 0x0D, 0x18])
        #expect(strap.sensorKinds == [.heartRate] && strap.advertisesHeartRate)
        #expect(AdvertisingData(parsing: [0x03, 0x03, 0x0F, 0x18]).sensorKinds.isEmpty) // battery only: not a sensor
        #expect(SensorProfile.builtIn.map(\.measures) == ["heart rate", "speed/cadence", "power"])
    }
}
