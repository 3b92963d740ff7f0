import Glibc
import RidegateLinux

/// The program's entry: the main thread becomes the event loop that runs every task of whichever command
/// is chosen (`EventLoop.runProcess`), so the daemon is one thread that sleeps in epoll when idle rather
/// than Dispatch's pool, whose monitor wakes every second. The command's own exit ends the process.
@main
enum RidegateMain {
    static func main() {
        do {
            try EventLoop.runProcess { _ in
                await RidegateCommand.main()
                exit(0)
            }
        } catch {
            let message = Array("ridegate: cannot start the event loop: \(error). If it says \"Too many open files\", raise the limit (ulimit -n; LimitNOFILE= in the service)\n".utf8)
            _ = write(2, message, message.count)
            exit(EventLoop.failureExitStatus) // EX_OSERR: systemd's Restart=on-failure tries again
        }
    }
}
