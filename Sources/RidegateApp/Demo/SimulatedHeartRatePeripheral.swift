import RidegateCore
import RidegateLinux

/// A heart-rate strap's GATT server speaking ATT PDUs on one end of a SOCK_SEQPACKET pair: Generic
/// Access (device name), Heart Rate (0x2A37 notify, body sensor location) and Battery (level, read and
/// notify). The demo's strap and the ATT client tests both talk to it, so they exercise the real client.
public final class SimulatedHeartRatePeripheral: Sendable {
    public struct Behaviour: Sendable {
        /// Answer the CCCD write with "insufficient authentication", like a strap that wants pairing.
        public var requirePairing = false
        /// Never answer requests (a peer that hangs mid-transaction).
        public var silent = false
        public var name = "HR-Strap"
        public var batteryPercent: UInt8 = 87

        public init(requirePairing: Bool = false, silent: Bool = false, name: String = "HR-Strap", batteryPercent: UInt8 = 87) {
            self.requirePairing = requirePairing
            self.silent = silent
            self.name = name
            self.batteryPercent = batteryPercent
        }
    }

    struct Attribute {
        var handle: UInt16
        var type: BluetoothUUID
        var value: [UInt8]
    }

    static let heartRateValueHandle: UInt16 = 6
    static let heartRateCCCD: UInt16 = 7
    static let batteryValueHandle: UInt16 = 12
    static let batteryCCCD: UInt16 = 13

    private let fd: FileDescriptor
    private let behaviour: Behaviour
    private let attributes: [Attribute]
    private let state = Locked<PeripheralState>(PeripheralState())

    struct PeripheralState: Sendable {
        var mtu: UInt16 = 23
        var cccd: [UInt16: UInt16] = [:]
    }

    public init(descriptor: FileDescriptor, behaviour: Behaviour = Behaviour()) {
        fd = descriptor
        self.behaviour = behaviour
        func declaration(_ properties: UInt8, _ valueHandle: UInt16, _ uuid: BluetoothUUID) -> [UInt8] {
            [properties, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + uuid.bytes
        }
        attributes = [
            Attribute(handle: 1, type: .primaryService, value: BluetoothUUID.genericAccess.bytes),
            Attribute(handle: 2, type: .characteristic, value: declaration(0x02, 3, .deviceName)),
            Attribute(handle: 3, type: .deviceName, value: Array(behaviour.name.utf8)),
            Attribute(handle: 4, type: .primaryService, value: BluetoothUUID.heartRateService.bytes),
            Attribute(handle: 5, type: .characteristic, value: declaration(0x10, 6, .heartRateMeasurement)),
            Attribute(handle: 6, type: .heartRateMeasurement, value: []),
            Attribute(handle: 7, type: .clientCharacteristicConfiguration, value: [0, 0]),
            Attribute(handle: 8, type: .characteristic, value: declaration(0x02, 9, .bodySensorLocation)),
            Attribute(handle: 9, type: .bodySensorLocation, value: [1]), // chest
            Attribute(handle: 10, type: .primaryService, value: BluetoothUUID.batteryService.bytes),
            Attribute(handle: 11, type: .characteristic, value: declaration(0x12, 12, .batteryLevel)),
            Attribute(handle: 12, type: .batteryLevel, value: [behaviour.batteryPercent]),
            Attribute(handle: 13, type: .clientCharacteristicConfiguration, value: [0, 0]),
        ]
    }

    /// Serves requests until the client goes away or the task is cancelled.
    public func run() async {
        do {
            for try await request in ReadableChunks.stream(fd, label: "peripheral") {
                guard !behaviour.silent else { continue }
                if let response = respond(to: request) { try? send(response) }
            }
        } catch {}
    }

    /// Sends a heart-rate measurement, if the client has subscribed.
    public func notifyHeartRate(_ value: [UInt8]) {
        guard state.withLock({ $0.cccd[Self.heartRateCCCD] ?? 0 }) & 0x01 != 0 else { return }
        try? send(ATTPDU.notification(handle: Self.heartRateValueHandle, value: value).encoded)
    }

    public var heartRateSubscribed: Bool { state.withLock { ($0.cccd[Self.heartRateCCCD] ?? 0) & 0x01 != 0 } }

    /// Drops the link, as a strap going out of range.
    public func disconnect() {
        _ = shutdownDescriptor(fd)
    }

    private func send(_ pdu: [UInt8]) throws {
        let result = pdu.withUnsafeBytes { raw in Result { () throws(Errno) -> Int in try fd.write(raw) } }
        _ = try result.get()
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
            if a.type == .heartRateMeasurement {
                return ATTPDU.errorResponse(request: pdu.opcode, handle: handle, code: .readNotPermitted).encoded
            }
            return ATTPDU.readResponse(Array(a.value.prefix(mtu - 1))).encoded
        case .writeRequest(let handle, let value):
            guard handle == Self.heartRateCCCD || handle == Self.batteryCCCD, value.count == 2 else {
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
