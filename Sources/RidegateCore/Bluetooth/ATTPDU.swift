/// Attribute Protocol PDUs (Core Spec v5.4 Vol 3 Part F §3.4): the ones a GATT client of a heart-rate
/// strap needs, encoded and decoded. Decoding never traps: a short or malformed PDU is an error value.
public enum ATTOpcode: UInt8, Sendable {
    case errorResponse = 0x01
    case exchangeMTURequest = 0x02
    case exchangeMTUResponse = 0x03
    case findInformationRequest = 0x04
    case findInformationResponse = 0x05
    case readByTypeRequest = 0x08
    case readByTypeResponse = 0x09
    case readRequest = 0x0A
    case readResponse = 0x0B
    case readByGroupTypeRequest = 0x10
    case readByGroupTypeResponse = 0x11
    case writeRequest = 0x12
    case writeResponse = 0x13
    case handleValueNotification = 0x1B
    case handleValueIndication = 0x1D
    case handleValueConfirmation = 0x1E
    case writeCommand = 0x52
}

/// What a PDU is by its opcode (§3.3, the method table of §3.4.8): only a response ends a transaction.
/// Notifications and indications are odd too (0x1B, 0x1D), so "odd means response" is wrong.
public enum ATTMethod: Sendable, Equatable {
    case response, request, command, notification, indication, confirmation, unknown

    public init(opcode: UInt8) {
        switch opcode {
        case 0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: self = .response
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: self = .request
        case 0x1B, 0x23: self = .notification
        case 0x1D: self = .indication
        case 0x1E: self = .confirmation
        // The command flag (bit 6): Write Command 0x52, Signed Write Command 0xD2.
        case 0x52, 0xD2: self = .command
        default: self = .unknown
        }
    }
}

/// ATT error codes (§3.4.1.1). Open: an unknown code from an odd strap is data.
public struct ATTErrorCode: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    public static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    public static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    public static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    public static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    public static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    public static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)

    public var description: String {
        switch rawValue {
        case 0x01: "invalid handle"
        case 0x02: "read not permitted"
        case 0x03: "write not permitted"
        case 0x05: "insufficient authentication (the sensor requires pairing)"
        case 0x06: "request not supported"
        case 0x0A: "attribute not found"
        case 0x0F: "insufficient encryption (the sensor requires pairing)"
        default: "ATT error 0x" + [rawValue].hexString
        }
    }
}

public enum ATTPDU: Sendable, Equatable {
    case errorResponse(request: UInt8, handle: UInt16, code: ATTErrorCode)
    case exchangeMTURequest(mtu: UInt16)
    case exchangeMTUResponse(mtu: UInt16)
    case findInformationRequest(start: UInt16, end: UInt16)
    case findInformationResponse([(handle: UInt16, type: BluetoothUUID)])
    case readByTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    case readByTypeResponse([(handle: UInt16, value: [UInt8])])
    case readRequest(handle: UInt16)
    case readResponse([UInt8])
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    case readByGroupTypeResponse([(handle: UInt16, end: UInt16, value: [UInt8])])
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    case notification(handle: UInt16, value: [UInt8])
    case indication(handle: UInt16, value: [UInt8])
    case confirmation
    /// Any opcode this client does not handle, kept whole.
    case other(opcode: UInt8, parameters: [UInt8])

    public static func == (lhs: ATTPDU, rhs: ATTPDU) -> Bool { lhs.encoded == rhs.encoded }

    public var encoded: [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        switch self {
        case .errorResponse(let request, let handle, let code): return [0x01, request] + u16(handle) + [code.rawValue]
        case .exchangeMTURequest(let mtu): return [0x02] + u16(mtu)
        case .exchangeMTUResponse(let mtu): return [0x03] + u16(mtu)
        case .findInformationRequest(let s, let e): return [0x04] + u16(s) + u16(e)
        case .findInformationResponse(let items):
            let format: UInt8 = items.first.map { if case .long = $0.type { 2 } else { 1 } } ?? 1
            return [0x05, format] + items.flatMap { u16($0.handle) + $0.type.bytes }
        case .readByTypeRequest(let s, let e, let t): return [0x08] + u16(s) + u16(e) + t.bytes
        case .readByTypeResponse(let items):
            let length = UInt8(clamping: 2 + (items.first?.value.count ?? 0))
            return [0x09, length] + items.flatMap { u16($0.handle) + $0.value }
        case .readRequest(let h): return [0x0A] + u16(h)
        case .readResponse(let v): return [0x0B] + v
        case .readByGroupTypeRequest(let s, let e, let t): return [0x10] + u16(s) + u16(e) + t.bytes
        case .readByGroupTypeResponse(let items):
            let length = UInt8(clamping: 4 + (items.first?.value.count ?? 0))
            return [0x11, length] + items.flatMap { u16($0.handle) + u16($0.end) + $0.value }
        case .writeRequest(let h, let v): return [0x12] + u16(h) + v
        case .writeResponse: return [0x13]
        case .writeCommand(let h, let v): return [0x52] + u16(h) + v
        case .notification(let h, let v): return [0x1B] + u16(h) + v
        case .indication(let h, let v): return [0x1D] + u16(h) + v
        case .confirmation: return [0x1E]
        case .other(let op, let p): return [op] + p
        }
    }

    public init(decoding pdu: [UInt8]) throws(ATTDecodeError) {
        guard let opcode = pdu.first else { throw ATTDecodeError(pdu: pdu, reason: "empty PDU") }
        var reader = ByteReader(pdu, from: 1)
        func need(_ n: Int, _ what: String) throws(ATTDecodeError) {
            guard reader.remaining >= n else { throw ATTDecodeError(pdu: pdu, reason: "\(what) truncated") }
        }
        switch opcode {
        case 0x01:
            try need(4, "error response")
            self = .errorResponse(request: reader.u8(), handle: reader.u16(), code: ATTErrorCode(rawValue: reader.u8()))
        case 0x02, 0x03:
            try need(2, "MTU exchange")
            let mtu = reader.u16()
            self = opcode == 0x02 ? .exchangeMTURequest(mtu: mtu) : .exchangeMTUResponse(mtu: mtu)
        case 0x04:
            try need(4, "find information request")
            self = .findInformationRequest(start: reader.u16(), end: reader.u16())
        case 0x05:
            try need(1, "find information response")
            self = .findInformationResponse(try Self.findInformationItems(&reader, pdu: pdu))
        case 0x08, 0x10:
            try need(6, "read by type request")
            let start = reader.u16(), end = reader.u16()
            guard let type = BluetoothUUID(bytes: reader.take(reader.remaining)) else {
                throw ATTDecodeError(pdu: pdu, reason: "attribute type is neither 2 nor 16 bytes")
            }
            self = opcode == 0x08 ? .readByTypeRequest(start: start, end: end, type: type)
                : .readByGroupTypeRequest(start: start, end: end, type: type)
        case 0x09:
            try need(1, "read by type response")
            let length = try Self.itemLength(&reader, atLeast: 2, pdu: pdu, what: "read by type response")
            var items: [(UInt16, [UInt8])] = []
            while reader.remaining > 0 { items.append((reader.u16(), Array(reader.take(length - 2)))) }
            self = .readByTypeResponse(items)
        case 0x11:
            try need(1, "read by group type response")
            let length = try Self.itemLength(&reader, atLeast: 4, pdu: pdu, what: "read by group type response")
            var items: [(UInt16, UInt16, [UInt8])] = []
            while reader.remaining > 0 { items.append((reader.u16(), reader.u16(), Array(reader.take(length - 4)))) }
            self = .readByGroupTypeResponse(items)
        case 0x0A:
            try need(2, "read request")
            self = .readRequest(handle: reader.u16())
        case 0x0B:
            self = .readResponse(Array(reader.take(reader.remaining)))
        case 0x12, 0x52, 0x1B, 0x1D:
            try need(2, "handle")
            let handle = reader.u16()
            let value = Array(reader.take(reader.remaining))
            switch opcode {
            case 0x12: self = .writeRequest(handle: handle, value: value)
            case 0x52: self = .writeCommand(handle: handle, value: value)
            case 0x1B: self = .notification(handle: handle, value: value)
            default: self = .indication(handle: handle, value: value)
            }
        case 0x13: self = .writeResponse
        case 0x1E: self = .confirmation
        default: self = .other(opcode: opcode, parameters: Array(pdu.dropFirst()))
        }
    }

    /// A Find Information Response's (handle, type) pairs, 16- or 128-bit types by its format byte.
    static func findInformationItems(_ reader: inout ByteReader, pdu: [UInt8]) throws(ATTDecodeError) -> [(UInt16, BluetoothUUID)] {
        let format = reader.u8()
        let uuidLength = format == 1 ? 2 : (format == 2 ? 16 : 0)
        guard uuidLength > 0, reader.remaining > 0, reader.remaining % (2 + uuidLength) == 0 else {
            throw ATTDecodeError(pdu: pdu, reason: "find information response with format \(format) and \(reader.remaining) bytes")
        }
        var items: [(UInt16, BluetoothUUID)] = []
        while reader.remaining > 0 {
            let handle = reader.u16()
            guard let uuid = BluetoothUUID(bytes: reader.take(uuidLength)) else { break }
            items.append((handle, uuid))
        }
        return items
    }

    /// The length byte of a response made of equal items: at least `minimum`, and the rest whole items.
    static func itemLength(_ reader: inout ByteReader, atLeast minimum: Int, pdu: [UInt8], what: String) throws(ATTDecodeError) -> Int {
        let length = Int(reader.u8())
        guard length >= minimum, reader.remaining > 0, reader.remaining % length == 0 else {
            throw ATTDecodeError(pdu: pdu, reason: "\(what) items of \(length) bytes in \(reader.remaining)")
        }
        return length
    }

    public var opcode: UInt8 { encoded.first ?? 0 }
}

public struct ATTDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var pdu: [UInt8]
    public var reason: String
    public var description: String { "malformed ATT PDU \(pdu.hexString): \(reason)" }
}
