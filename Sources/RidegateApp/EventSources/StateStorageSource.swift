import RidegateCore
import RidegateLinux

/// Watches whether the state directory's file system takes writes, so `health` and the LED can say when the
/// ride lives in memory only (a read-only state partition after a bad power cut). Looked at on start and then
/// every `interval` seconds (a remount is rare, and a look costs one statvfs(2)); with no interval, once (the
/// demo, whose sources must end for it to end).
public struct StateStorageSource: EventSource {
    public let name = "state storage"
    let directory: String
    let clock: SystemClock
    let logger: Logger
    let interval: Double?
    let loop: EventLoop

    public init(directory: String, clock: SystemClock, logger: Logger, loop: EventLoop, interval: Double? = 30) {
        self.loop = loop
        self.directory = directory
        self.clock = clock
        self.logger = logger
        self.interval = interval
    }

    public func run(emit: @escaping @Sendable (SourceEvent) -> Void) async {
        var last: StateStorage?
        var lastError: String?
        while !Task.isCancelled {
            do throws(SystemCallError) {
                let storage: StateStorage = try FileSystemState.isReadOnly(directory) ? .readOnly : .writable
                lastError = nil
                if storage != last { say(storage, first: last == nil) }
                last = storage
                emit(.stateStorage(storage, at: clock.now()))
            } catch {
                if error.description != lastError {
                    logger.warning("cannot tell whether the state directory can be written", [("error", error.description)])
                }
                lastError = error.description
            }
            guard let interval else { return }
            await loop.sleep(seconds: interval)
        }
    }

    private func say(_ storage: StateStorage, first: Bool) {
        switch storage {
        case .readOnly:
            logger.error("the state directory is on a read-only file system: the ride and unsent readings are kept in memory only and are lost when the power goes",
                         [("state_directory", directory), ("fix", "repair the state partition (fsck) and reboot: docs/install.md")])
        case .writable where !first:
            logger.notice("the state directory can be written again", [("state_directory", directory)])
        case .writable:
            break
        }
    }
}
