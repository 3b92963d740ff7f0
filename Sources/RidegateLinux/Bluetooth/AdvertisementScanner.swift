import RidegateCore

/// LE discovery through the management interface: powers nothing on (a powered-off adapter is an error
/// to report, not to fix behind the user's back), restarts discovery when the kernel ends a round, and
/// stops it when the scan is cancelled, leaving the adapter as it was.
public struct AdvertisementScanner: Sendable {
    private let loop: EventLoop

    /// `loop` reads the management socket.
    public init(loop: EventLoop) {
        self.loop = loop
    }

    /// Calls `found` for every advertisement until the task is cancelled.
    public func scan(found: @escaping @Sendable (ManagementEvent.DeviceFound) -> Void) async throws(BluetoothError) {
        let socket = try ManagementSocket(loop: loop)
        var events = socket.events.makeAsyncIterator()
        let index = try await firstPoweredController(socket, &events)
        try socket.send(ManagementCommand.packet(ManagementCommand.startDiscovery, index: index, parameters: [ManagementCommand.lowEnergy]))
        defer {
            // Leave the adapter as we found it; the socket closes with the stream.
            try? socket.send(ManagementCommand.packet(ManagementCommand.stopDiscovery, index: index, parameters: [ManagementCommand.lowEnergy]))
        }
        while !Task.isCancelled {
            let packet: [UInt8]?
            do {
                packet = try await events.next()
            } catch {
                throw .command(Errno(rawValue: 5))
            }
            guard let packet else { return }
            var eventIndex: UInt16 = 0
            guard let event = ManagementEvent(packet: packet, index: &eventIndex), eventIndex == index else { continue }
            switch event {
            case .deviceFound(let device):
                found(device)
            case .discovering(let active) where !active:
                // The kernel ends each discovery round (~10 s); start the next one.
                try socket.send(ManagementCommand.packet(ManagementCommand.startDiscovery, index: index, parameters: [ManagementCommand.lowEnergy]))
            case .commandComplete(let opcode, let status, _) where opcode == ManagementCommand.startDiscovery && status != 0 && status != 0x0A:
                throw .management(operation: "discovery", status: status)
            case .commandStatus(let opcode, let status) where opcode == ManagementCommand.startDiscovery && status != 0 && status != 0x0A:
                throw .management(operation: "discovery", status: status)
            case .indexRemoved:
                throw .noAdapter
            default:
                break
            }
        }
    }

    private func firstPoweredController(_ socket: ManagementSocket,
                                        _ events: inout ChunkStream.AsyncIterator) async throws(BluetoothError) -> UInt16 {
        try socket.send(ManagementCommand.packet(ManagementCommand.readControllerIndexList, index: ManagementCommand.noController))
        let list = try await response(to: ManagementCommand.readControllerIndexList, &events)
        guard list.count >= 4 else { throw .noAdapter }
        let count = Int(UInt16(list[0]) | UInt16(list[1]) << 8)
        guard count > 0 else { throw .noAdapter }
        var firstUnpowered: UInt16?
        for i in 0..<count where 2 + 2 * i + 1 < list.count {
            let index = UInt16(list[2 + 2 * i]) | UInt16(list[3 + 2 * i]) << 8
            try socket.send(ManagementCommand.packet(ManagementCommand.readControllerInformation, index: index))
            let info = try await response(to: ManagementCommand.readControllerInformation, &events)
            // address 6, version 1, manufacturer 2, supported settings 4, current settings 4 (bit 0: powered)
            guard info.count >= 17 else { continue }
            if info[13] & 0x01 != 0 { return index }
            firstUnpowered = firstUnpowered ?? index
        }
        throw firstUnpowered.map { .poweredOff(index: $0) } ?? .noAdapter
    }

    private func response(to opcode: UInt16, _ events: inout ChunkStream.AsyncIterator) async throws(BluetoothError) -> [UInt8] {
        while true {
            let packet: [UInt8]?
            do {
                packet = try await events.next()
            } catch {
                throw .command(Errno(rawValue: 5))
            }
            guard let packet else { throw .noAdapter }
            var index: UInt16 = 0
            switch ManagementEvent(packet: packet, index: &index) {
            case .commandComplete(let op, let status, let parameters) where op == opcode:
                guard status == 0 else { throw .management(operation: "command 0x\(String(opcode, radix: 16))", status: status) }
                return parameters
            case .commandStatus(let op, let status) where op == opcode && status != 0:
                throw .management(operation: "command 0x\(String(opcode, radix: 16))", status: status)
            default:
                continue
            }
        }
    }
}
