import RidegateApp
import RidegateCore
import RidegateLinux

/// A BLE sensor's GATT server speaking ATT PDUs on one end of a SOCK_SEQPACKET pair: Generic Access (device
/// name), then the services of its kind — Heart Rate (0x2A37 notify, body sensor location), Cycling Speed and
/// Cadence (0x2A5B notify), Cycling Power (0x2A63 notify), any mix on one device — and Battery (level, read and
/// notify). The demo's sensors and the ATT client tests talk to it, so they exercise the real client.
public final class SimulatedSensorPeripheral: Sendable {
    public struct Behaviour: Sendable {
        /// Answer the CCCD write with "insufficient authentication", like a strap that wants pairing.
        public var requirePairing = false
        /// Never answer requests (a peer that hangs mid-transaction).
        public var silent = false
        public var name = "HR-Strap"
        public var batteryPercent: UInt8 = 87
        public var services: [SensorProfile] = [.heartRate]
        /// Device Information (0x180A), when given.
        public var manufacturer: String?
        public var model: String?
        public var serialNumber: String?

        public init(requirePairing: Bool = false, silent: Bool = false, name: String = "HR-Strap", batteryPercent: UInt8 = 87,
                    services: [SensorProfile] = [.heartRate], manufacturer: String? = nil, model: String? = nil, serialNumber: String? = nil) {
            self.serialNumber = serialNumber
            self.requirePairing = requirePairing
            self.silent = silent
            self.name = name
            self.batteryPercent = batteryPercent
            self.services = services
            self.manufacturer = manufacturer
            self.model = model
        }
    }

    struct Attribute {
        var handle: UInt16
        var type: BluetoothUUID
        var value: [UInt8]
    }

    /// Shared with the read loop, which closes it when the client goes: later notifications do nothing.
    private let fd: SharedDescriptor
    /// Reads the client's requests.
    private let loop: EventLoop
    private let behaviour: Behaviour
    private let attributes: [Attribute]
    /// Each notifying characteristic's value handle and its CCCD handle.
    private let notifying: [BluetoothUUID: (value: UInt16, cccd: UInt16)]
    private let state = Locked<PeripheralState>(PeripheralState())

    struct PeripheralState: Sendable {
        var mtu: UInt16 = 23
        var cccd: [UInt16: UInt16] = [:]
    }

    public init(descriptor: FileDescriptor, behaviour: Behaviour = Behaviour(), loop: EventLoop) {
        fd = SharedDescriptor(descriptor)
        self.loop = loop
        self.behaviour = behaviour
        var table: [Attribute] = []
        var notifying: [BluetoothUUID: (value: UInt16, cccd: UInt16)] = [:]
        func add(_ type: BluetoothUUID, _ value: [UInt8]) -> UInt16 {
            let handle = UInt16(table.count + 1)
            table.append(Attribute(handle: handle, type: type, value: value))
            return handle
        }
        func characteristic(_ uuid: BluetoothUUID, properties: UInt8, value: [UInt8]) {
            let declaration = UInt16(table.count + 1)
            let valueHandle = declaration + 1
            _ = add(.characteristic, [properties, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + uuid.bytes)
            _ = add(uuid, value)
            if properties & 0x10 != 0 { notifying[uuid] = (valueHandle, add(.clientCharacteristicConfiguration, [0, 0])) }
        }
        _ = add(.primaryService, BluetoothUUID.genericAccess.bytes)
        characteristic(.deviceName, properties: 0x02, value: Array(behaviour.name.utf8))
        // Each kind's service as its profile says: the measurement (notify), then what a sensor of the kind serves
        // beside it (feature, location).
        for kind in behaviour.services {
            _ = add(.primaryService, kind.service.bytes)
            characteristic(kind.measurement, properties: 0x10, value: [])
            for extra in kind.simulatedCharacteristics { characteristic(extra.uuid, properties: 0x02, value: extra.value) }
        }
        if behaviour.manufacturer != nil || behaviour.model != nil {
            _ = add(.primaryService, BluetoothUUID.deviceInformationService.bytes)
            if let manufacturer = behaviour.manufacturer { characteristic(.manufacturerName, properties: 0x02, value: Array(manufacturer.utf8)) }
            // NUL-padded, as some do.
            if let model = behaviour.model { characteristic(.modelNumber, properties: 0x02, value: Array(model.utf8) + [0]) }
            if let serial = behaviour.serialNumber { characteristic(.serialNumber, properties: 0x02, value: Array(serial.utf8)) }
        }
        _ = add(.primaryService, BluetoothUUID.batteryService.bytes)
        characteristic(.batteryLevel, properties: 0x12, value: [behaviour.batteryPercent])
        attributes = table
        self.notifying = notifying
    }

    /// Serves requests until the client goes away or the task is cancelled.
    public func run() async {
        do {
            for try await request in ReadableChunks.stream(fd, label: "peripheral", on: loop) {
                guard !behaviour.silent else { continue }
                if let response = respond(to: request) { try? send(response) }
            }
        } catch {}
    }

    /// Sends a measurement (0x2A37, 0x2A5B, 0x2A63, 0x2A19), if the client has subscribed to it.
    public func notify(_ characteristic: BluetoothUUID, _ value: [UInt8]) {
        guard let handles = notifying[characteristic], subscribed(characteristic) else { return }
        try? send(ATTPDU.notification(handle: handles.value, value: value).encoded)
    }

    public func subscribed(_ characteristic: BluetoothUUID) -> Bool {
        guard let handles = notifying[characteristic] else { return false }
        return state.withLock { ($0.cccd[handles.cccd] ?? 0) & 0x01 != 0 }
    }

    public func notifyHeartRate(_ value: [UInt8]) { notify(.heartRateMeasurement, value) }

    public var heartRateSubscribed: Bool { subscribed(.heartRateMeasurement) }

    /// Drops the link, as a strap going out of range.
    public func disconnect() {
        _ = fd.use { shutdownDescriptor($0) }
    }

    private func send(_ pdu: [UInt8]) throws {
        let result = fd.use { fd in pdu.withUnsafeBytes { raw in Result { () throws(Errno) -> Int in try fd.write(raw) } } }
        _ = try result?.get()
    }

    private func respond(to bytes: [UInt8]) -> [UInt8]? {
        guard let pdu = try? ATTPDU(decoding: bytes) else {
            return ATTPDU.errorResponse(request: bytes.first ?? 0, handle: 0, code: ATTErrorCode(rawValue: 0x04)).encoded
        }
        let mtu = Int(state.withLock { $0.mtu })
        func notFound(_ start: UInt16) -> [UInt8] {
            ATTPDU.errorResponse(request: pdu.opcode, handle: start, code: .attributeNotFound).encoded
        }
        switch pdu {
        case .exchangeMTURequest(let client):
            state.withLock { $0.mtu = max(23, min(client, 185)) }
            return ATTPDU.exchangeMTUResponse(mtu: 185).encoded
        case .readByGroupTypeRequest(let start, let end, let type) where type == .primaryService:
            let services = attributes.filter { $0.type == .primaryService && $0.handle >= start && $0.handle <= end }
            guard !services.isEmpty else { return notFound(start) }
            let items = services.prefix((mtu - 2) / 6).map { s -> (handle: UInt16, end: UInt16, value: [UInt8]) in
                let next = attributes.first { $0.type == .primaryService && $0.handle > s.handle }?.handle
                return (s.handle, next.map { $0 - 1 } ?? 0xFFFF, s.value)
            }
            return ATTPDU.readByGroupTypeResponse(items).encoded
        case .readByTypeRequest(let start, let end, let type):
            let matches = attributes.filter { $0.type == type && $0.handle >= start && $0.handle <= end }
            guard let first = matches.first else { return notFound(start) }
            let sameLength = matches.filter { $0.value.count == first.value.count }
            let items = sameLength.prefix((mtu - 2) / (2 + first.value.count)).map { (handle: $0.handle, value: $0.value) }
            return ATTPDU.readByTypeResponse(items).encoded
        case .findInformationRequest(let start, let end):
            let items = attributes.filter { $0.handle >= start && $0.handle <= end }.prefix((mtu - 2) / 4)
                .map { (handle: $0.handle, type: $0.type) }
            guard !items.isEmpty else { return notFound(start) }
            return ATTPDU.findInformationResponse(Array(items)).encoded
        case .readRequest(let handle):
            guard let a = attributes.first(where: { $0.handle == handle }) else {
                return ATTPDU.errorResponse(request: pdu.opcode, handle: handle, code: .invalidHandle).encoded
            }
            if notifying[a.type] != nil, a.type != .batteryLevel {
                return ATTPDU.errorResponse(request: pdu.opcode, handle: handle, code: .readNotPermitted).encoded
            }
            return ATTPDU.readResponse(Array(a.value.prefix(mtu - 1))).encoded
        case .writeRequest(let handle, let value):
            guard notifying.values.contains(where: { $0.cccd == handle }), value.count == 2 else {
                return ATTPDU.errorResponse(request: pdu.opcode, handle: handle, code: .writeNotPermitted).encoded
            }
            if behaviour.requirePairing {
                return ATTPDU.errorResponse(request: pdu.opcode, handle: handle, code: .insufficientAuthentication).encoded
            }
            state.withLock { $0.cccd[handle] = UInt16(value[0]) | UInt16(value[1]) << 8 }
            return ATTPDU.writeResponse.encoded
        case .confirmation, .writeCommand, .notification, .indication:
            return nil
        default:
            return ATTPDU.errorResponse(request: pdu.opcode, handle: 0, code: .requestNotSupported).encoded
        }
    }
}
