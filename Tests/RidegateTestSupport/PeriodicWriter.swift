import Dispatch
import Foundation
import RidegateLinux

/// Writes to a descriptor on a timer of its own queue (a receiver talking at its rate). Not a task on the
/// test runner's cooperative pool: with two cores, CPU-bound tests beside it could starve it for seconds,
/// and a test listening for a talking receiver would hear silence.
public final class PeriodicWriter: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    /// Calls `text(n)` for n = 0, 1, 2… every `interval` seconds and writes it to `descriptor`.
    public init(_ descriptor: FileDescriptor, every interval: Double, _ text: @escaping @Sendable (Int) -> String) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ridegate.test.writer"))
        var count = 0
        timer.schedule(deadline: .now(), repeating: .milliseconds(Int(interval * 1000)))
        timer.setEventHandler {
            try? descriptor.writeAll(Array(text(count).utf8))
            count += 1
        }
        timer.resume()
    }

    public func stop() { timer.cancel() }

    deinit { timer.cancel() }
}
