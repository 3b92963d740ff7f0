import Foundation
import RidegateLinux

extension EventLoop {
    /// A loop running on a thread of its own, for parts a test uses alone (the daemon's loop is its main
    /// thread: `EventLoop.runProcess`). `stop()` ends the thread; one left running ends with the test process.
    public static func started() throws -> EventLoop {
        let loop = try EventLoop()
        Thread { loop.run() }.start()
        return loop
    }
}
