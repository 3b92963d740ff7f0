import Foundation
import RidegateLinux

extension EventLoop {
    /// A loop on a thread of its own for one fuzz input's session, stopped by the caller when the input is done.
    static func forOneInput() -> EventLoop? {
        guard let loop = try? EventLoop() else { return nil }
        Thread { loop.run() }.start()
        return loop
    }
}
