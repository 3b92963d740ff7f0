import Foundation
import Glibc
import RidegateCore
import RidegateLinux
import Testing

/// Log lines to journald's socket: a journal that stops reading must not stop the daemon.
@Suite struct StandardErrorLogHandlerTests {
    @Test("A journal socket nobody reads: logging goes on without waiting, the lost lines are counted and said once it reads again, every line whole")
    func stalledJournal() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let (writer, reader) = (pair[0], pair[1])
        defer { close(writer) }
        var small: Int32 = 4096
        _ = setsockopt(writer, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let logger = Logger(label: "test", level: .info, handler: StandardErrorLogHandler(style: .journal, descriptor: writer))
        // On a thread of its own: were logging to wait for the reader, this would hang there, not the suite.
        let done = DispatchSemaphore(value: 0)
        Thread {
            for i in 0..<5000 { logger.info("line \(i) " + String(repeating: "x", count: 80)) }
            done.signal()
        }.start()
        let finished = done.wait(timeout: .now() + 20) == .success
        #expect(finished, "logging waited for a reader that never came")
        guard finished else {
            close(reader) // ends the blocked writer (EPIPE)
            return
        }
        defer { close(reader) }
        let first = drain(reader)
        logger.info("after the stall")
        let second = drain(reader)
        let lines = (first + second).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(!lines.isEmpty && lines.count < 5000, "\(lines.count) lines arrived")
        #expect(lines.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<4>") }, "a line cut or run into another")
        #expect(second.contains("log lines dropped"), "\(second.prefix(300))")
        let said = second.split(separator: "\n").first { $0.contains("log lines dropped") }.flatMap { line in
            line.split(separator: " ").first { $0.hasPrefix("log.dropped=") }.flatMap { Int($0.dropFirst("log.dropped=".count)) }
        }
        #expect(said.map { $0 + lines.count - 1 } == 5001, "dropped \(String(describing: said)) + arrived \(lines.count - 1) lines should be the 5001 logged")
        #expect(second.hasSuffix("after the stall\n"))
    }

    /// Everything waiting on `fd` now.
    private func drain(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
