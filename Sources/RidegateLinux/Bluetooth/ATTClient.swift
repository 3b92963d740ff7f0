import RidegateCore

/// A GATT client over one ATT bearer (Core Spec v5.4 Vol 3 Part F and Part G §4): one request at a time,
/// each answered or failed within the 30 s ATT transaction timeout; notifications delivered as a stream;
/// indications confirmed.
public actor ATTClient {
    public let bearer: ATTBearer
    /// Seconds a request may wait for its response (30 s in the spec, shorter in tests).
    public let transactionTimeout: Double
    public private(set) var mtu: UInt16 = 23
    /// Value notifications and indications: (attribute handle, value); the newest 64 kept for a consumer that
    /// lags (a measurement is superseded by the next). Ends, without an error, when the link does.
    public nonisolated let notifications: HandoffStream<Notification>
    private let notify: Handoff<Notification>
    public typealias Notification = (handle: UInt16, value: [UInt8])
    private var pending: (id: Int, continuation: CheckedContinuation<ATTPDU, Error>)?
    /// The pending request's 30 s timer, called off when the transaction ends another way.
    private var transactionTimer: DeferredWork?
    private var nextID = 0
    private var closed: ATTClientError?

    public init(bearer: ATTBearer, transactionTimeout: Double = 30) {
        self.bearer = bearer
        self.transactionTimeout = transactionTimeout
        (notifications, notify) = HandoffStream.make(capacity: 64)
    }

    /// Reads PDUs until the link goes away. Run it beside the requests; it returns why the link ended.
    public func run() async -> ATTClientError {
        var reason = ATTClientError.disconnected
        do {
            for try await bytes in bearer.incoming {
                handle(bytes)
            }
        } catch {
            reason = .link("\(error)")
        }
        close(reason)
        return reason
    }

    /// Ends the pending transaction's bookkeeping (its timer too) and hands over its continuation.
    private func takePending() -> (id: Int, continuation: CheckedContinuation<ATTPDU, Error>)? {
        transactionTimer?.cancel()
        transactionTimer = nil
        defer { pending = nil }
        return pending
    }

    private func close(_ reason: ATTClientError) {
        closed = reason
        takePending()?.continuation.resume(throwing: reason)
        notify.finish()
    }

    private func handle(_ bytes: [UInt8]) {
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(decoding: bytes)
        } catch {
            // A malformed response still ends the transaction it answers; anything else (a truncated
            // notification or indication among them) is dropped and the request keeps waiting.
            if pending != nil, let op = bytes.first, ATTMethod(opcode: op) == .response {
                takePending()?.continuation.resume(throwing: ATTClientError.malformed(error.description))
            }
            return
        }
        switch pdu {
        case .notification(let handle, let value):
            notify.send((handle, value))
        case .indication(let handle, let value):
            notify.send((handle, value))
            try? bearer.send(ATTPDU.confirmation.encoded)
        case .exchangeMTURequest:
            // A peripheral may start its own exchange; answer with ours (§3.4.2.2).
            try? bearer.send(ATTPDU.exchangeMTUResponse(mtu: 247).encoded)
        default:
            guard let op = bytes.first else { return }
            switch ATTMethod(opcode: op) {
            case .response:
                takePending()?.continuation.resume(returning: pdu)
            case .request:
                // The gateway serves no attributes; a request must still be answered (§3.4.1.1), or the peer
                // waits out its own transaction timeout and drops the link.
                try? bearer.send(ATTPDU.errorResponse(request: op, handle: 0, code: .requestNotSupported).encoded)
            case .command, .notification, .indication, .confirmation, .unknown:
                break
            }
        }
    }

    /// Sends a request and waits for its response (or the peer's error response).
    public func request(_ pdu: ATTPDU) async throws(ATTClientError) -> ATTPDU {
        if let closed { throw closed }
        guard pending == nil else { throw .busy }
        nextID += 1
        let id = nextID
        let timeout = transactionTimeout
        let response: ATTPDU
        do {
            response = try await withCheckedThrowingContinuation { continuation in
                // Waiting before sending: a peer that answers at once must find the request pending.
                pending = (id, continuation)
                do {
                    try bearer.send(pdu.encoded)
                } catch {
                    pending = nil
                    continuation.resume(throwing: ATTClientError.link("send: \(error)"))
                    return
                }
                transactionTimer = bearer.loop.execute(after: timeout) { [weak self] in
                    Task { await self?.expire(id) }
                }
            }
        } catch let error as ATTClientError {
            throw error
        } catch {
            throw .link("\(error)")
        }
        if case .errorResponse(let request, let handle, let code) = response {
            throw .peer(request: request, handle: handle, code: code)
        }
        return response
    }

    private func expire(_ id: Int) {
        guard pending?.id == id, let p = takePending() else { return }
        p.continuation.resume(throwing: ATTClientError.timeout)
        // After a transaction timeout no more requests may be sent on this bearer (§3.3.3).
        closed = .timeout
        bearer.disconnect()
    }

    // MARK: GATT procedures

    public func exchangeMTU(_ clientMTU: UInt16 = 247) async throws(ATTClientError) -> UInt16 {
        let response = try await request(.exchangeMTURequest(mtu: clientMTU))
        guard case .exchangeMTUResponse(let server) = response else { throw .unexpected(response) }
        mtu = max(23, min(clientMTU, server))
        return mtu
    }

    /// Discover All Primary Services (Vol 3 Part G §4.4.1). What the peer answers is checked by
    /// `GATTDiscovery`: nonsense is dropped, and the loop ends when the handles stop moving forward.
    public func discoverPrimaryServices() async throws(ATTClientError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 1
        while true {
            let response: ATTPDU
            do {
                response = try await request(.readByGroupTypeRequest(start: start, end: 0xFFFF, type: .primaryService))
            } catch .peer(_, _, let code) where code == .attributeNotFound {
                return services
            }
            guard case .readByGroupTypeResponse(let items) = response, !items.isEmpty else { throw .unexpected(response) }
            services += GATTDiscovery.services(from: items.map { ($0.handle, $0.end, $0.value) }, requestedFrom: start)
            guard let next = GATTDiscovery.nextStart(after: items.map(\.end), from: start, end: 0xFFFF) else { return services }
            start = next
        }
    }

    /// Discover All Characteristics of a Service (§4.6.1), checked by `GATTDiscovery`.
    public func discoverCharacteristics(of service: GATTService) async throws(ATTClientError) -> [GATTCharacteristic] {
        guard service.start >= 1, service.start <= service.end else { return [] }
        var found: [GATTCharacteristic] = []
        var start = service.start
        while true {
            let response: ATTPDU
            do {
                response = try await request(.readByTypeRequest(start: start, end: service.end, type: .characteristic))
            } catch .peer(_, _, let code) where code == .attributeNotFound {
                break
            }
            guard case .readByTypeResponse(let items) = response, !items.isEmpty else { throw .unexpected(response) }
            found += items.compactMap { GATTDiscovery.characteristic(handle: $0.handle, value: $0.value, in: start...service.end) }
            guard let next = GATTDiscovery.nextStart(after: items.map(\.handle), from: start, end: service.end) else { break }
            start = next
        }
        return GATTDiscovery.ordered(found, serviceEnd: service.end)
    }

    /// Discover All Characteristic Descriptors (§4.7.1), inside the characteristic's range only.
    public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws(ATTClientError) -> [(handle: UInt16, type: BluetoothUUID)] {
        var result: [(UInt16, BluetoothUUID)] = []
        guard characteristic.valueHandle < characteristic.end else { return [] }
        var start = characteristic.valueHandle + 1
        while true {
            let response: ATTPDU
            do {
                response = try await request(.findInformationRequest(start: start, end: characteristic.end))
            } catch .peer(_, _, let code) where code == .attributeNotFound {
                break
            }
            guard case .findInformationResponse(let items) = response, !items.isEmpty else { throw .unexpected(response) }
            result += items.filter { (start...characteristic.end).contains($0.handle) }.map { ($0.handle, $0.type) }
            guard let next = GATTDiscovery.nextStart(after: items.map(\.handle), from: start, end: characteristic.end) else { break }
            start = next
        }
        return result
    }

    public func read(_ handle: UInt16) async throws(ATTClientError) -> [UInt8] {
        let response = try await request(.readRequest(handle: handle))
        guard case .readResponse(let value) = response else { throw .unexpected(response) }
        return value
    }

    public func write(_ handle: UInt16, _ value: [UInt8]) async throws(ATTClientError) {
        let response = try await request(.writeRequest(handle: handle, value: value))
        guard case .writeResponse = response else { throw .unexpected(response) }
    }
}

public enum ATTClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case disconnected
    case link(String)
    case timeout
    case busy
    case peer(request: UInt8, handle: UInt16, code: ATTErrorCode)
    case malformed(String)
    case unexpected(ATTPDU)

    public var description: String {
        switch self {
        case .disconnected: "the sensor disconnected"
        case .link(let why): "the link failed: \(why)"
        case .timeout: "the sensor did not answer within the ATT transaction timeout"
        case .busy: "a request is already outstanding"
        case .peer(let request, let handle, let code): "the sensor refused request 0x\([request].hexString) on handle \(handle): \(code)"
        case .malformed(let why): why
        case .unexpected(let pdu): "unexpected response \(pdu.encoded.hexString)"
        }
    }
}
