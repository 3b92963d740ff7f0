import Foundation

/// A child process started with posix_spawn, reaped with waitpid by us alone (Foundation's Process
/// can hang in waitUntilExit on Linux when its run-loop monitor and ours disagree). Optional stdout and
/// stderr capture, line by line, on a reader thread.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let output = Observed<[String]>([])
    private let exit = Observed<Int32?>(nil)
    /// True once the child's output pipe reached end of file (every line it wrote is in `lines`).
    private let outputEnded = Observed(false)

    /// `linesPerSecond`: take at most that many output lines a second (a slow consumer: the child blocks on its
    /// output once the pipe is full).
    public init(_ executable: String, _ arguments: [String], captureOutput: Bool = false, environment: [String: String]? = nil,
                linesPerSecond: Double? = nil) throws {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        var pipeFDs: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeFDs) == 0 else { throw ChildProcessError(message: "pipe: \(errno)") }
            posix_spawn_file_actions_adddup2(&fileActions, pipeFDs[1], 1)
            posix_spawn_file_actions_adddup2(&fileActions, pipeFDs[1], 2)
            posix_spawn_file_actions_addclose(&fileActions, pipeFDs[0])
        } else {
            posix_spawn_file_actions_addopen(&fileActions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&fileActions, 2, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        // Nothing else of the test runner's: a long-lived child (a broker, a daemon) holding the write end of
        // another child's output pipe would keep that pipe from ever reaching end of file.
        _ = Self.closeFrom?(&fileActions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { env?.forEach { free($0) } }
        var attributes = Self.signalsUnblocked()
        defer { posix_spawnattr_destroy(&attributes) }
        var child: pid_t = 0
        let rc: Int32
        if var e = env {
            rc = posix_spawn(&child, executable, &fileActions, &attributes, argv, &e)
            env = e
        } else {
            rc = posix_spawn(&child, executable, &fileActions, &attributes, argv, environ)
        }
        guard rc == 0 else { throw ChildProcessError(message: "cannot start \(executable): \(String(cString: strerror(rc)))") }
        pid = child
        if captureOutput {
            close(pipeFDs[1])
            let fd = pipeFDs[0]
            let output = output
            let ended = outputEnded
            Thread {
                var pace = linesPerSecond.map { LinePace(perSecond: $0) }
                Self.readLines(fd: fd) { line in
                    pace?.wait()
                    output.update { $0.append(line) }
                }
                ended.update { $0 = true }
            }.start()
        }
        // The reaper blocks in waitpid(2) on its own thread and publishes the status.
        let exit = exit
        let spawned = child
        Thread {
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) < 0 && errno == EINTR {}
            exit.update { $0 = status }
        }.start()
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), which Swift's Glibc module does not declare.
    static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Threads of the test runner block signals; a child would inherit that mask and ignore SIGTERM. Spawn
    /// attributes that give it an empty mask and the default SIGTERM and SIGINT (destroyed by the caller).
    static func signalsUnblocked() -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return attributes
    }

    deinit {
        if exit.current == nil { kill(pid, SIGKILL) }
    }

    private static func readLines(fd: Int32, _ line: (String) -> Void) {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                break
            }
            for byte in buffer[0..<n] {
                if byte == 0x0A {
                    line(String(decoding: pending, as: UTF8.self))
                    pending.removeAll()
                } else {
                    pending.append(byte)
                }
            }
        }
        if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
        close(fd)
    }

    /// Lines the child wrote so far (stdout and stderr interleaved).
    public var lines: [String] { output.current }

    /// Waits until `condition` holds over the output lines or `timeout` passes; returns the lines.
    @discardableResult
    public func waitForOutput(timeout: TimeInterval, until condition: @escaping ([String]) -> Bool) async -> [String] {
        await output.wait(timeout: timeout, until: condition)
    }

    /// Everything the child wrote, once its output has ended (or `timeout` passes).
    public func waitForAllOutput(timeout: TimeInterval) async -> [String] {
        _ = await outputEnded.wait(timeout: timeout) { $0 }
        return output.current
    }

    public var hasExited: Bool { exit.current != nil }

    public func signal(_ sig: Int32) {
        if exit.current == nil { kill(pid, sig) }
    }

    /// Waits for the child to exit (up to `timeout`); returns its wait status, or nil if it is still running.
    @discardableResult
    public func waitForExit(timeout: TimeInterval) async -> Int32? {
        await exit.wait(timeout: timeout) { $0 != nil }
    }

    /// The same, blocking the calling thread (a helper already off the pool).
    @discardableResult
    public func waitForExitBlocking(timeout: TimeInterval) -> Int32? {
        exit.waitBlocking(timeout: timeout) { $0 != nil }
    }

    /// SIGTERM, then SIGKILL if it lingers; blocks until the child is gone (for restarting a broker on the
    /// same port). The reaper runs on its own thread, so this does not depend on the caller's executor.
    public func terminate() {
        guard exit.current == nil else { return }
        kill(pid, SIGTERM)
        if exit.waitBlocking(timeout: 5, until: { $0 != nil }) == nil {
            kill(pid, SIGKILL)
            exit.waitBlocking(timeout: 5) { $0 != nil }
        }
    }

    /// The same, suspending instead of blocking: the wait happens on a thread of its own, so the few threads the
    /// suite's async tests (and the parts they test) run on stay free while a child takes seconds to stop.
    public func terminate() async {
        guard exit.current == nil else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.terminate()
                done.resume()
            }
        }
    }

    /// SIGTERM now, and the wait (SIGKILL if it lingers) on a thread of its own: for a deinit, which may run
    /// on any thread and cannot suspend.
    public func terminateInBackground() {
        guard exit.current == nil else { return }
        Thread { self.terminate() }.start()
    }

    /// The exit code when the child exited normally.
    public static func exitCode(_ status: Int32) -> Int32? { (status & 0x7F) == 0 ? (status >> 8) & 0xFF : nil }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Holds a reader to at most `perSecond` lines a second.
struct LinePace {
    let interval: Double
    var next = Date().timeIntervalSinceReferenceDate

    init(perSecond: Double) {
        interval = 1 / max(1, perSecond)
    }

    mutating func wait() {
        let now = Date().timeIntervalSinceReferenceDate
        if next > now { Thread.sleep(forTimeInterval: next - now) }
        next = max(next, now) + interval
    }
}
